/**
 * SST v2 app: the one stack of stacks/tessera.ts. `npm run deploy` runs `sst deploy`; the deploy settings
 * (inference and LLM endpoints, where their keys are kept) come from the environment or `.env.<stage>`.
 */
import { composeTessera, deployMediaSettings, deploySettings, MINIMIZE_POLICIES } from '@tessera/stacks';
import type { SSTConfig } from 'sst';
import type { StackContext } from 'sst/constructs';

function Tessera({ app, stack }: StackContext): void {
  const settings = deploySettings();
  composeTessera(stack, { stage: app.stage, settings, media: deployMediaSettings(settings) });
}

export default {
  config() {
    return { name: 'tessera', region: 'us-east-1' };
  },
  stacks(app) {
    app.node.setContext(MINIMIZE_POLICIES, true);
    app.stack(Tessera);
  },
} satisfies SSTConfig;
