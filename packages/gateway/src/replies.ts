/** The commands, as /help lists them. */
const HELP = [
  'Commands:',
  '/start <token> - register with an invite token',
  '/search <query> - search your content',
  '/summarize <query> - a summary',
  '/report <query> - a detailed report',
  '/research <query> - deep research',
  '/code <request> - coding help',
  '/wiki save | search <query> | topic <slug> | index | lint - your wiki',
  "/instructions [text] - show or set the agents' instructions",
  '/memories - what the agents remember',
  '/jobs - your scheduled jobs',
  '/help - this list',
  'Plain text goes to the gateway agent; a photo searches similar images; a video searches by its caption.',
].join('\n');

/** What the gateway says (document 3: commands, and the chat gateway replies of "Errors"). */
export const REPLIES = {
  unavailable: 'Service temporarily unavailable. Please try again later.',
  warming: 'Runtime is warming up, try again shortly.',
  register: 'Please register first: send /start <invite token> with the token your administrator gave you.',
  tryAgain: 'Something went wrong handling that. Please try again.',
  invalidToken: 'That invite token is unknown, expired, already used or taken by someone else.',
  registrationUnavailable:
    'Registration is temporarily unavailable. Please send the same /start command again shortly: your invite stays reserved for you.',
  registered: (tenant: string) =>
    `Registered: your messages now go to ${tenant}. Send /help to see what I can do.`,
  startWithoutToken: 'Send /start <invite token> to register.',
  photoTooLarge: 'That photo is over the 5 MB limit; send a smaller one.',
  photoTooLargeToSearch:
    'That photo is too large to search with, and Telegram sent no smaller size of it; send one under 4 MB.',
  wikiSaved: 'Sessions are saved to the wiki automatically in the background; nothing to do.',
  usage: (command: string, args: string) => `Usage: /${command} ${args}`,
  noAnswer: 'The agent finished without an answer.',
  help: HELP,
  unknownCommand: (command: string) => `Unknown command /${command}.\n\n${HELP}`,
} as const;
