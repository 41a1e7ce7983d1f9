/**
 * The whole of Tessera in one stack: storage, queues, the functions and what invokes them. sst.config.ts
 * (`sst deploy`) and app.ts (`cdk synth`, `cdk deploy`) both compose it.
 */
import type { Stack } from 'aws-cdk-lib';
import { Api } from './api';
import { Functions } from './functions';
import { Queues } from './queues';
import { Schedules } from './schedules';
import type { FunctionSettings } from './settings';
import { Storage } from './storage';
import { Workers } from './workers';

export interface TesseraProps {
  /** The SST or CDK stage, any name SST accepts; functions derive their resource prefix from it. */
  stage: string;
  /** Inference and LLM endpoints and where their keys are kept; default: none (embedded models). */
  settings?: FunctionSettings;
}

export interface Tessera {
  storage: Storage;
  queues: Queues;
  functions: Functions;
  api: Api;
  workers: Workers;
  schedules: Schedules;
}

export function composeTessera(stack: Stack, props: TesseraProps): Tessera {
  const storage = new Storage(stack, 'Storage');
  const queues = new Queues(stack, 'Queues');
  const functions = new Functions(stack, 'Functions', {
    stage: props.stage,
    storage,
    queues,
    settings: props.settings,
  });
  const api = new Api(stack, 'Api', { functions });
  const workers = new Workers(stack, 'Workers', { functions, storage, queues });
  const schedules = new Schedules(stack, 'Schedules', { functions });
  return { storage, queues, functions, api, workers, schedules };
}
