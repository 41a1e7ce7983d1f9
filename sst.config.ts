/** SST v2 app: one stack composing the CDK constructs of stacks/. `npm run deploy` runs `sst deploy`. */
import { Api, Functions, Queues, Schedules, Storage, Workers } from '@tessera/stacks';
import type { SSTConfig } from 'sst';
import type { StackContext } from 'sst/constructs';

function Tessera({ app, stack }: StackContext): void {
  const storage = new Storage(stack, 'Storage');
  const queues = new Queues(stack, 'Queues');
  const functions = new Functions(stack, 'Functions', { stage: app.stage, storage, queues });
  new Api(stack, 'Api', { functions });
  new Workers(stack, 'Workers', { functions, storage, queues });
  new Schedules(stack, 'Schedules', { functions });
}

export default {
  config() {
    return { name: 'tessera', region: 'us-east-1' };
  },
  stacks(app) {
    app.stack(Tessera);
  },
} satisfies SSTConfig;
