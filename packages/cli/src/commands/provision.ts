/**
 * `tessera provision --tenant-id <id> --step <schemas|verify|memory|telemetry|tier>`: runs one provisioning
 * step in process against the deployment's AWS endpoints (the local runtime's emulators by default, found
 * through its data directory, or `AWS_ENDPOINT_URL`). One line on success (exit 0) or failure (exit 1).
 */
import { Command } from 'commander';
import { type AwsTarget, awsTarget, useAwsTarget } from '../aws-target';
import { CliError, settle } from '../errors';
import { type Output, stdio } from '../output';

export const PROVISION_STEPS = ['schemas', 'verify', 'memory', 'telemetry', 'tier'] as const;

export interface ProvisionOptions {
  tenantId: string;
  step: string;
  /** Comma-separated profile names (schemas, verify); default the tenant's deployed profiles. */
  profiles?: string;
  tier?: string;
}

const list = (names: string[]) => names.join(', ') || 'none';

export async function runProvision(
  options: ProvisionOptions,
  output: Output = stdio,
  target: AwsTarget = awsTarget(),
): Promise<number> {
  const step = options.step as (typeof PROVISION_STEPS)[number];
  if (!PROVISION_STEPS.includes(step)) {
    throw new CliError(`Unknown step '${options.step}': expected one of ${PROVISION_STEPS.join(', ')}`);
  }
  if (step === 'tier' && !options.tier) throw new CliError('The tier step needs --tier <tier>');
  const profiles = options.profiles
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  useAwsTarget(target);
  // Loaded once the endpoints are set: the AWS clients read them when they are made.
  const provisioning = await import('@tessera/provisioning');
  const deps = provisioning.provisioning();
  const tenant = options.tenantId;
  try {
    switch (step) {
      case 'schemas': {
        const done = await provisioning.deploySchemas(deps, tenant, profiles);
        output.out(`Deployed ${done.schemas.length} schema(s) for ${tenant}: ${list(done.schemas)}`);
        break;
      }
      case 'verify': {
        const { verified } = await provisioning.verifySchemas(deps, tenant, profiles);
        output.out(
          `Verified ${verified.length} schema(s) for ${tenant}: ${list(verified.map((v) => `${v.schema} (${v.documents} documents)`))}`,
        );
        break;
      }
      case 'memory': {
        const { schema } = await provisioning.initializeMemory(deps, tenant);
        output.out(`Memory schema ${schema} ready for ${tenant}`);
        break;
      }
      case 'telemetry': {
        const { project, collector } = await provisioning.createTelemetryProject(deps, tenant);
        output.out(`Telemetry project ${project} created at ${collector}`);
        break;
      }
      case 'tier': {
        const { tier } = await provisioning.storeTier(deps, tenant, options.tier);
        output.out(`Tier of ${tenant} set to ${tier}`);
        break;
      }
    }
  } catch (error) {
    // A step's failures are the user's to act on: their message is the line.
    const message = (error as Error).message;
    if (
      error instanceof provisioning.StepFailedError ||
      (error as { status?: number }).status !== undefined
    ) {
      throw new CliError(`${step} step failed: ${message}`);
    }
    throw error;
  }
  return 0;
}

export function provisionCommand(): Command {
  return new Command('provision')
    .description(
      'Run one provisioning step of a tenant in process (schemas, verify, memory, telemetry, tier)',
    )
    .requiredOption('--tenant-id <id>', 'the tenant (org:tenant, or a bare id)')
    .requiredOption('--step <step>', `one of ${PROVISION_STEPS.join(', ')}`)
    .option('--profiles <names>', "comma-separated profile names (default: the tenant's deployed profiles)")
    .option('--tier <tier>', 'the router tier to store (tier step)')
    .action((options: ProvisionOptions) => settle(runProvision(options)));
}
