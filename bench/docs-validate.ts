/**
 * validate-and-normalise of docs.json vs JSON.parse of the same text, in the same run.
 *
 *   bun bench/docs-validate.ts
 *
 * Deterministic inputs: a typical config (~5 KB, every section used, no unknown keys), the same with the
 * vendor extras real files carry (unknown keys → warnings, which need line/column), the same with one
 * unknown key repeated in five objects (a native search for it is ambiguous, so keys are read instead), the
 * same with one half-typed colour (an error, as an editor sees mid-keystroke), and a large config (~500 KB,
 * thousands of pages in nested groups). For each, batches of JSON.parse and of validateDocsConfig
 * alternate; the median time per call of each is reported, and their ratio. Target: ratio ≤ 2 for the
 * typical config (performance issue #17; the first docs.json issue asked ≤ 4).
 */
import { validateDocsConfig } from '../src/docs-config/validation/validate'
// Deterministic, so every run measures the same texts.
import { random } from '../tests/helpers/random'

const WORDS = [
  'plants',
  'chat',
  'quickstart',
  'tokens',
  'errors',
  'webhooks',
  'streaming',
  'models',
  'billing',
  'limits',
  'search',
  'auth',
]

function navigation(next: () => number, groups: number, pagesPerGroup: number, depth: number): unknown[] {
  const group = (level: number, index: number): unknown => ({
    group: `${WORDS[index % WORDS.length]} ${level}-${index}`,
    pages: Array.from({ length: pagesPerGroup }, (_, page) =>
      level < depth && page === pagesPerGroup - 1
        ? group(level + 1, index * 7 + page)
        : `${WORDS[Math.floor(next() * WORDS.length)]}/${WORDS[(index + page) % WORDS.length]}-${level}-${page}`,
    ),
  })
  return Array.from({ length: groups }, (_, index) => group(0, index))
}

export function typicalConfig(
  groups: number,
  pagesPerGroup: number,
  depth: number,
  extras: boolean,
  repeatedExtra = false,
): string {
  const next = random(42)
  const config: Record<string, unknown> = {
    $schema: 'https://trellis.example.com/docs.json/schema',
    name: 'Trellis',
    logo: { light: '/logo/light.svg', dark: '/logo/dark.svg', href: 'https://trellis.example.com' },
    favicon: '/favicon.svg',
    colors: {
      primary: '#16A34A',
      light: '#4ADE80',
      dark: '#15803D',
      background: { light: '#FFFFFF', dark: '#0B0F0C' },
    },
    topbarLinks: [
      { name: 'Status', url: 'https://status.trellis.example.com' },
      { name: 'Blog', url: 'https://trellis.example.com/blog' },
    ],
    topbarCtaButton: { name: 'Get a token', url: 'https://app.trellis.example.com/tokens' },
    versions: ['v2', 'v1'],
    anchors: [
      { name: 'API Reference', icon: 'code', url: 'api-reference', color: '#2563EB' },
      { name: 'Community', icon: 'discord', url: 'https://discord.gg/trellis', iconType: 'brands' },
      {
        name: 'v1 docs',
        icon: 'clock-rotate-left',
        url: 'v1',
        version: 'v1',
        color: { from: '#117866', to: '#2AB673' },
      },
    ],
    topAnchor: { name: 'Guides', icon: 'book-open' },
    tabs: [
      { name: 'API Reference', url: 'api-reference' },
      { name: 'SDKs', url: 'sdks' },
    ],
    api: {
      baseUrl: ['https://api.trellis.example.com', 'https://sandbox.trellis.example.com'],
      auth: { method: 'bearer' },
      playground: { mode: 'simple' },
    },
    openapi: ['/openapi.json', 'https://api.trellis.example.com/v1/openapi.json'],
    footerSocials: {
      x: 'https://x.com/trellis',
      github: 'https://github.com/trellis',
      discord: 'https://discord.gg/trellis',
    },
    feedback: { suggestEdit: true, raiseIssue: true },
    modeToggle: { default: 'dark' },
    navigation: navigation(next, groups, pagesPerGroup, depth),
  }
  if (extras) {
    config.analytics = { ga4: { measurementId: 'G-TRELLIS01' }, posthog: { apiKey: 'phc_example' } }
    ;(config.colors as Record<string, unknown>).anchors = { from: '#117866', to: '#2AB673' }
    ;(config.feedback as Record<string, unknown>).thumbsRating = true
    config.redirects = [{ source: '/old', destination: '/new' }]
  }
  if (repeatedExtra) {
    const sections = config as {
      colors: Record<string, unknown>
      anchors: Record<string, unknown>[]
      api: Record<string, unknown>
      navigation: Record<string, unknown>[]
    }
    for (const object of [sections.colors, sections.anchors[2], sections.api, sections.navigation[groups - 1], config])
      object.note = 'kept by the vendor'
  }
  return JSON.stringify(config, null, 2)
}

/** Median nanoseconds per call of `fn` over `rounds` batches of `calls`. */
function measure(fn: () => unknown, calls: number): number {
  const start = Bun.nanoseconds()
  for (let index = 0; index < calls; index++) fn()
  return (Bun.nanoseconds() - start) / calls
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function compare(label: string, text: string, calls: number, rounds: number, expectValid = true) {
  const result = validateDocsConfig(text)
  if (result.valid !== expectValid)
    throw new Error(`${label}: expected valid=${expectValid}: ${JSON.stringify(result.errors[0])}`)
  for (let warm = 0; warm < 3; warm++) {
    measure(() => JSON.parse(text), calls)
    measure(() => validateDocsConfig(text), calls)
  }
  const parse: number[] = []
  const validate: number[] = []
  for (let round = 0; round < rounds; round++) {
    parse.push(measure(() => JSON.parse(text), calls))
    validate.push(measure(() => validateDocsConfig(text), calls))
  }
  const parseNs = median(parse)
  const validateNs = median(validate)
  return {
    input: label,
    bytes: new TextEncoder().encode(text).byteLength,
    errors: result.errors.length,
    warnings: result.warnings.length,
    'JSON.parse µs': +(parseNs / 1000).toFixed(1),
    'validate µs': +(validateNs / 1000).toFixed(1),
    ratio: +(validateNs / parseNs).toFixed(2),
  }
}

// Also imported by bench/docs-validate-steps.ts for the same texts.
if (import.meta.main) {
  const typical = typicalConfig(6, 5, 1, false)
  const typicalWithExtras = typicalConfig(6, 5, 1, true)
  const typicalWithRepeatedExtra = typicalConfig(6, 5, 1, false, true)
  const large = typicalConfig(250, 12, 3, false)
  // An editor mid-keystroke: the primary colour half typed.
  const typicalMidEdit = typical.replace('"primary": "#16A34A"', '"primary": "#16A3"')

  console.log(`bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`)
  console.table([
    compare('typical (~5 KB)', typical, 2000, 15),
    compare('typical + vendor extras (warnings)', typicalWithExtras, 2000, 15),
    compare('typical + one extra key in 5 objects', typicalWithRepeatedExtra, 2000, 15),
    compare('typical, one error (mid-edit)', typicalMidEdit, 2000, 15, false),
    compare('large (~500 KB)', large, 20, 15),
  ])
}
