/** The web client beside the runtime (`npm start`): its build made when missing or stale, served on PORT. */
import { ensureClientBuild, startWebServer, type WebServer, webEnv } from '@tessera/web-server';

export type Web = WebServer;

/** Builds the client when it needs it; runs while the runtime starts. */
export function buildWebClient(): Promise<unknown> {
  return ensureClientBuild(webEnv.webClientDir, (line) => process.stdout.write(`${line}\n`));
}

export async function startWeb(runtimeUrl: string): Promise<Web> {
  try {
    return await startWebServer({
      port: webEnv.port,
      host: webEnv.host,
      runtimeUrl,
      harnessKeyTtlS: webEnv.webHarnessKeyTtlS,
      clientDir: webEnv.webClientDir,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
    throw new Error(
      `the web client cannot listen on ${webEnv.host}:${webEnv.port} (${code}): set PORT to another port, ` +
        'or TESSERA_WEB=off to run the runtime alone',
    );
  }
}
