/**
 * Where one validation of the typical docs.json goes. The steps of validateDocsConfig's valid path are
 * added one at a time, each row timed the way bench/docs-validate.ts times a whole validation (batches of
 * calls on the same text, rounds alternating, the median per call), so a row's increase over the row
 * before is what that step costs in place, allocation and collection included.
 *
 *   bun bench/docs-validate-steps.ts
 *   bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/docs-validate-steps.ts --profile 300000
 *   bun bench/profile-summary.ts /tmp/prof/*.cpuprofile --skip-ms 500
 */
import { typicalConfig } from './docs-validate'
import { validateDocsConfig } from '../src/docs-config/validation/validate'
import { keysInText, keysInValue } from '../src/docs-config/validation/key-count'
import { planOf } from '../src/docs-config/validation/plan'
import { DOCS_CONFIG_CHECK, DocsConfigSchema } from '../src/docs-format/docs-json'
import { checkCrossFieldRules } from '../src/docs-config/rules'
import { findUnstorableText } from '../src/docs-config/validation/unstorable-values'
import { applyDefaults } from '../src/docs-config/defaults'
import type { Finding } from '../src/docs-config/validation/finding'

const text = typicalConfig(6, 5, 1, false)
const profile = Bun.argv.indexOf('--profile')
if (profile !== -1) {
  const calls = Number(Bun.argv[profile + 1])
  for (let call = 0; call < calls; call++) validateDocsConfig(text)
  process.exit(0)
}

const PLAN = planOf(DocsConfigSchema)
const CALLS = 2000
const ROUNDS = 15

/** The valid path up to and including step `last` (1 = JSON.parse alone). */
function upTo(last: number): () => unknown {
  return () => {
    const value = JSON.parse(text)
    const walked = { unsafeInteger: false, unknownKey: false }
    if (last >= 2) keysInValue(value, PLAN, 0, walked)
    if (last >= 3) keysInText(text)
    if (last >= 4) DOCS_CONFIG_CHECK.Check(value)
    const findings: Finding[] = []
    if (last >= 5) checkCrossFieldRules(value, findings)
    if (last >= 6) findUnstorableText(text, value, findings, walked.unsafeInteger)
    if (last >= 7) applyDefaults(DocsConfigSchema, value)
    return value
  }
}

const rows: [string, () => unknown][] = [
  ['JSON.parse', upTo(1)],
  ['+ keysInValue (key count, unknown keys, 2^53)', upTo(2)],
  ['+ keysInText', upTo(3)],
  ['+ compiled schema check', upTo(4)],
  ['+ cross-field rules', upTo(5)],
  ['+ storable-text check', upTo(6)],
  ['+ filling defaults', upTo(7)],
  ['validateDocsConfig', () => validateDocsConfig(text)],
]

function measure(fn: () => unknown): number {
  const start = Bun.nanoseconds()
  for (let call = 0; call < CALLS; call++) fn()
  return (Bun.nanoseconds() - start) / CALLS
}

const samples = rows.map((): number[] => [])
for (let round = 0; round < ROUNDS + 3; round++) {
  rows.forEach(([, fn], index) => {
    const ns = measure(fn)
    if (round >= 3) samples[index].push(ns)
  })
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const parse = median(samples[0])
console.log(`bun ${Bun.version}, ${text.length} characters, median of ${ROUNDS} rounds of ${CALLS} calls`)
console.table(
  rows.map(([step], index) => ({
    step,
    µs: +(median(samples[index]) / 1000).toFixed(2),
    '÷ JSON.parse': +(median(samples[index]) / parse).toFixed(2),
  })),
)
