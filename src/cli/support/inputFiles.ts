// The files the CLI reads by their flags (keys, credentials, request files, --env-file): whole, named by their flag
// in errors, and a pipe read for what it holds now rather than waiting for a writer.
import fs from 'node:fs';
import { parseEnv } from 'node:util';
import { MobilityError } from '../../core/base';

export function readFile(file: string, flag: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new MobilityError('FILE_READ_FAILED', `Cannot read the ${flag} file ${file}: ${reason}.`);
  }
}

/**
 * The whole text of a file, whatever it is: a regular file, a named pipe, a process substitution (`<(…)`, /dev/fd/N).
 * Read once, asynchronously, so that SIGTERM still ends a process waiting for a pipe's writer.
 */
export async function readWholeFile(file: string, flag: string): Promise<string> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new MobilityError('FILE_READ_FAILED', `Cannot read the ${flag} file ${file}: ${reason}.`);
  }
}

/**
 * `--env-file <file>` (or `--dotenv <file>`): `NAME=value` lines (dotenv), parsed by Node. Node itself reads a
 * `--env-file` given anywhere on the command line before any program starts (looking for NODE_OPTIONS), so a pipe or
 * a process substitution given so reaches us empty, and waiting for it would hang: such a file is read without
 * waiting, and when nothing is left of it, the user is told to give it as `--dotenv`, which Node leaves alone.
 */
export async function readEnvFile(file: string, flag: '--env-file' | '--dotenv'): Promise<Record<string, string>> {
  let regular = true;
  try {
    regular = fs.statSync(file).isFile();
  } catch {
    // Said by the read below.
  }
  let text: string;
  if (flag === '--env-file' && !regular) {
    text = readAvailable(file, flag);
    if (!text)
      throw new MobilityError(
        'USAGE',
        `--env-file ${file} is a pipe that Node read before mobility-api started (Node reads every --env-file on the command line itself), so nothing of it is left: give it as --dotenv ${file}, or as a regular file.`,
      );
  } else {
    text = await readWholeFile(file, flag);
  }
  return Object.fromEntries(Object.entries(parseEnv(text)).filter((e): e is [string, string] => e[1] !== undefined));
}

/** What a pipe holds now, without waiting for a writer (O_NONBLOCK): '' when its writer is gone and it is empty. */
function readAvailable(file: string, flag: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    throw new MobilityError('FILE_READ_FAILED', `Cannot read the ${flag} file ${file}: ${(err as Error).message}.`);
  }
  const chunks: Buffer[] = [];
  try {
    const buffer = Buffer.alloc(65536);
    for (;;) {
      const n = fs.readSync(fd, buffer);
      if (n === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN')
      throw new MobilityError('FILE_READ_FAILED', `Cannot read the ${flag} file ${file}: ${(err as Error).message}.`);
  } finally {
    fs.closeSync(fd);
  }
  return Buffer.concat(chunks).toString('utf8');
}
