/**
 * The CDK app: the same stack `sst deploy` deploys, for `cdk synth` and `cdk deploy` (cdk.json runs this).
 * The stage comes from `-c stage=<name>` (default `dev`); the stack is named as SST names it,
 * `<stage>-tessera-Tessera`. It carries no account or region, so it synthesizes offline. With
 * `-c templates-only=true` the assets stay where they were built instead of being copied into the output
 * (about 240 MB): the templates are the same, for linting, but such an output cannot be deployed.
 */
import { App, Stack } from 'aws-cdk-lib';
import { deployMediaSettings, deploySettings } from './env';
import { composeTessera, MINIMIZE_POLICIES } from './tessera';

// Only read for the CLI's context: it must not write an assembly of its own when the process exits.
const cli = new App({ autoSynth: false });
const templatesOnly = String(cli.node.tryGetContext('templates-only')) === 'true';
const app = new App({
  context: { [MINIMIZE_POLICIES]: true },
  ...(templatesOnly ? { postCliContext: { 'aws:cdk:disable-asset-staging': true } } : {}),
});
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
const stack = new Stack(app, `${stage}-tessera-Tessera`, { description: `Tessera, stage ${stage}` });
const settings = deploySettings();
composeTessera(stack, { stage, settings, media: deployMediaSettings(settings) });
app.synth();
