/**
 * What this package sets in the process environment: the AWS SDK reads its endpoints and credentials from
 * there itself.
 */

/** Points the AWS SDK of this process at the emulators' one endpoint, for every service. */
export function setAwsEndpoints(emulators: { gateway: string }): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = emulators.gateway;
  process.env.AWS_ENDPOINT_URL_SQS = emulators.gateway;
  process.env.AWS_ENDPOINT_URL_S3 = emulators.gateway;
}

/**
 * Credentials for emulators: s3rver accepts only its own key pair (dynalite and fauxqs accept any), and real
 * AWS keys of the developer's shell never need to reach an emulator.
 */
export function useEmulatorCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}
