import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, errorReason, settle } from '../src/index';
import { captureOutput } from './support';

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe('errorReason', () => {
  it('is the message of a CliError', () => {
    expect(errorReason(new CliError('Tenant missing.'))).toBe('Tenant missing.');
  });

  it('keeps any message on one line and marks errors nobody expected', () => {
    expect(errorReason(new TypeError('first\n  second'))).toBe('Unexpected error: first second');
    expect(errorReason('thrown string')).toBe('Unexpected error: thrown string');
  });
});

describe('settle', () => {
  it('sets the exit code a command returns', async () => {
    const { output, stderr } = captureOutput();
    await settle(Promise.resolve(0), output);
    expect(process.exitCode).toBe(0);
    expect(stderr).toEqual([]);
  });

  it('prints one line to stderr and exits 1 when the command fails', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    const { output, stdout, stderr } = captureOutput();
    await settle(Promise.reject(new CliError('Node not found (HTTP 404)')), output);
    expect(stderr).toEqual(['Node not found (HTTP 404)']);
    expect(stdout).toEqual([]);
    expect(exit).toHaveBeenCalledWith(1);
  });
});
