import type { CodeLanguage, CodeProgram } from './codeRequest';
import { goProgram } from './goProgram';
import { javaProgram } from './javaProgram';
import { pythonProgram } from './pythonProgram';
import { shellProgram } from './shellProgram';
import { typescriptProgram } from './typescriptProgram';

/** How each language's program is named, shown and opened. */
export interface CodeLanguageInfo {
  language: CodeLanguage;
  /** What users pick: "Python (PyJWT + requests)". */
  label: string;
  /** A file name the program runs under as it is (Java's class name is fixed). */
  fileName: string;
  /** VS Code's language id, for an untitled editor. */
  languageId: string;
}

export const CODE_LANGUAGE_INFO: Readonly<Record<CodeLanguage, CodeLanguageInfo>> = {
  python: { language: 'python', label: 'Python (PyJWT + requests)', fileName: 'mobility_api_request.py', languageId: 'python' },
  typescript: { language: 'typescript', label: 'TypeScript / Node (jose + fetch)', fileName: 'mobilityApiRequest.ts', languageId: 'typescript' },
  go: { language: 'go', label: 'Go (golang-jwt + net/http)', fileName: 'main.go', languageId: 'go' },
  java: { language: 'java', label: 'Java (JDK only: java.net.http)', fileName: 'MobilityApiRequest.java', languageId: 'java' },
  shell: { language: 'shell', label: 'Shell (openssl + curl)', fileName: 'mobility-api-request.sh', languageId: 'shellscript' },
};

const GENERATORS: Readonly<Record<CodeLanguage, (program: CodeProgram) => string>> = {
  python: pythonProgram,
  typescript: typescriptProgram,
  go: goProgram,
  java: javaProgram,
  shell: shellProgram,
};

/** One complete program in `language` that signs a fresh token for every request of `program` and sends it. */
export function generateCode(language: CodeLanguage, program: CodeProgram): string {
  return GENERATORS[language](program);
}
