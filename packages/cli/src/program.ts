/** The root `tessera` command; each command group lives in commands/<name>.ts. */
import { Command } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { graphCommand } from './commands/graph';
import { indexCommand } from './commands/index-command';
import { provisionCommand } from './commands/provision';

export function buildProgram(): Command {
  return new Command('tessera')
    .version(pkg.version)
    .description(pkg.description)
    .addCommand(graphCommand())
    .addCommand(indexCommand())
    .addCommand(provisionCommand());
}
