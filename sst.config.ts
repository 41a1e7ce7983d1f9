/** SST v2 app: one stack composing the CDK constructs of stacks/. `npm run deploy` runs `sst deploy`. */
import { Api, Queues, Storage } from '@tessera/stacks';
import type { SSTConfig } from 'sst';
import type { StackContext } from 'sst/constructs';

function Tessera({ app, stack }: StackContext): void {
  const storage = new Storage(stack, 'Storage');
  const queues = new Queues(stack, 'Queues');
  new Api(stack, 'Api', { stage: app.stage, storage, queues });
}

export default {
  config() {
    return { name: 'tessera', region: 'us-east-1' };
  },
  stacks(app) {
    app.stack(Tessera);
  },
} satisfies SSTConfig;
