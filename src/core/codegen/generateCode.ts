import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import type { CodeLanguage, CodeProgram, GrpcCodeRequest, RestCodeProgram } from './codeRequest';
import { goProgram } from './goProgram';
import { javaProgram } from './javaProgram';
import { pythonGrpcProgram } from './pythonGrpcProgram';
import { pythonProgram } from './pythonProgram';
import { shellProgram } from './shellProgram';
import { typescriptGrpcProgram } from './typescriptGrpcProgram';
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
  /** What users pick for a gRPC call, in the languages that have one (GRPC_CODE_LANGUAGES). */
  grpcLabel?: string;
}

export const CODE_LANGUAGE_INFO: Readonly<Record<CodeLanguage, CodeLanguageInfo>> = {
  python: {
    language: 'python',
    label: 'Python (PyJWT + requests)',
    fileName: 'mobility_api_request.py',
    languageId: 'python',
    grpcLabel: 'Python (PyJWT + grpcio)',
  },
  typescript: {
    language: 'typescript',
    label: 'TypeScript / Node (jose + fetch)',
    fileName: 'mobilityApiRequest.ts',
    languageId: 'typescript',
    grpcLabel: 'TypeScript / Node (jose + @grpc/grpc-js)',
  },
  go: { language: 'go', label: 'Go (golang-jwt + net/http)', fileName: 'main.go', languageId: 'go' },
  java: {
    language: 'java',
    label: 'Java (java.net.http + Gson)',
    fileName: 'MobilityApiRequest.java',
    languageId: 'java',
  },
  shell: {
    language: 'shell',
    label: 'Shell (openssl + curl)',
    fileName: 'mobility-api-request.sh',
    languageId: 'shellscript',
  },
};

/** The languages a gRPC call's program can be generated in. */
export const GRPC_CODE_LANGUAGES: readonly CodeLanguage[] = ['python', 'typescript'];

const GRPC_GENERATORS: Partial<Record<CodeLanguage, (program: CodeProgram<GrpcCodeRequest>) => string>> = {
  python: pythonGrpcProgram,
  typescript: typescriptGrpcProgram,
};

const GENERATORS: Readonly<Record<CodeLanguage, (program: RestCodeProgram) => string>> = {
  python: pythonProgram,
  typescript: typescriptProgram,
  go: goProgram,
  java: javaProgram,
  shell: shellProgram,
};

/**
 * One complete program in `language` that signs a fresh token for every request (or gRPC call) of
 * `program` and sends it. A gRPC call in a language without a gRPC generator is CODE_GRPC_UNSUPPORTED,
 * naming the languages that have one (and, for shell, Copy as grpcurl).
 */
export function generateCode(language: CodeLanguage, program: CodeProgram): string {
  const { request } = program;
  if (request.kind === 'rest') return GENERATORS[language]({ ...program, request });
  const generator = GRPC_GENERATORS[language];
  if (!generator) throw grpcLanguageRefusal(language)!;
  return generator({ ...program, request });
}

/** CODE_GRPC_UNSUPPORTED naming the languages that write gRPC calls (and, for shell, Copy as grpcurl); undefined for those. */
export function grpcLanguageRefusal(language: CodeLanguage): MobilityError | undefined {
  if (GRPC_GENERATORS[language]) return undefined;
  const [first, second] = GRPC_CODE_LANGUAGES.map((l) => CODE_LANGUAGE_INFO[l].grpcLabel ?? l);
  return new MobilityError(
    'CODE_GRPC_UNSUPPORTED',
    language === 'shell'
      ? l10n.t(
          'Copy as Code writes gRPC calls in {0} and {1}. For the command line, use Copy as grpcurl: it keeps the token in a shell variable of its own.',
          first,
          second,
        )
      : l10n.t(
          'Copy as Code writes gRPC calls in {0} and {1} only: {2} has no gRPC program. Pick one of those.',
          first,
          second,
          CODE_LANGUAGE_INFO[language].label.replace(/ \(.*$/, ''),
        ),
  );
}
