import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Issue } from '../../src/docs-config/model'

/** Real docs.json / mint.json files from public repositories (see its README.md). */
export const CORPUS_DIR = join(import.meta.dir, '../fixtures/docs-json-corpus')

/** Every corpus file as [name, text], skipping the README and the index. */
export function corpusFiles(): [string, string][] {
  return readdirSync(CORPUS_DIR)
    .filter((name) => name !== 'README.md' && name !== 'INDEX.tsv')
    .sort()
    .map((name) => [name, readFileSync(join(CORPUS_DIR, name), 'utf8')])
}

/** Issues whose line or column do not exist in `text` (a column may point just past the line's end). */
export function issuesOutsideText(text: string, issues: Issue[]): Issue[] {
  const lines = text.split('\n')
  return issues.filter((issue) => {
    const line = lines[issue.line - 1]
    return line === undefined || issue.column < 1 || issue.column > line.length + 1
  })
}

/** Files the corpus README describes, and what the validator must say about each. */
export const DESCRIBED_FILES: { file: string; kind: string; path: string; message: string; at?: string }[] = [
  { file: 'mintlify__docs__mint.json_ba27e5005', kind: 'missing comma', path: '', message: 'missing comma', at: '"x"' },
  {
    file: 'AdamikHQ__adamik-documentation__mint.json_a31679d59',
    kind: 'invalid JSON',
    path: '',
    message: 'invalid JSON',
    at: '<<<<<<<',
  },
  {
    file: 'Cloudanix__docs__docs_mint.json_32d6ae86a',
    kind: 'trailing comma',
    path: '',
    message: 'trailing comma',
    at: ',',
  },
  {
    file: '0xStation__docs__mint.json_6e2a5e2b9',
    kind: 'trailing comma',
    path: '',
    message: 'trailing comma',
    at: ',',
  },
]
