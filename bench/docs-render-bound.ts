/**
 * How long rendering one docs page can hold up the server (issue #27 §4): pages of the default body limit (1 MiB) of
 * several hostile shapes, rendered as the site renders them (renderMarkdownYielding, cap 4 MiB), while a 1 ms timer
 * measures the longest stretch the event loop did not run. The reference in the same run is the same render without
 * yielding (renderMarkdown), whose stall is the whole render.
 *
 *   bun bench/docs-render-bound.ts [size in bytes, default 1048576]
 */
import { PageTooLarge, renderMarkdown, renderMarkdownYielding } from '../src/docs-site/markdown'

const SIZE = Number(process.argv[2] ?? 1024 * 1024)

const PAGES: Record<string, (size: number) => string> = {
  'reference links (amplification)': (size) => {
    let text = `[r]: https://example.com/${'a'.repeat(2000)}\n\n`
    while (text.length < size) text += '[x][r] '
    return text
  },
  'short paragraphs with links': (size) => {
    let text = ''
    for (let i = 0; text.length < size; i++) text += `Paragraph ${i} with [a link](/x) and *emphasis*.\n\n`
    return text
  },
  'one table': (size) => `|a|b|c|\n|-|-|-|\n${'|x|y|z|\n'.repeat(size / 8)}`,
  'one code block': (size) => `\`\`\`js\n${'const a = 1; // x\n'.repeat(size / 18)}\`\`\`\n`,
  'nested components': (size) => '<Note><Card title="x" icon="leaf">t</Card></Note>\n'.repeat(size / 49),
  'one paragraph of emphasis': (size) => '*a **b '.repeat(size / 7),
}

/** Runs `work` while a 1 ms timer records the longest gap between its ticks. */
async function stall(work: () => Promise<unknown> | unknown): Promise<{ total: number; longest: number; out: string }> {
  let longest = 0
  let last = performance.now()
  let ticking = true
  const tick = () => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
    if (ticking) setTimeout(tick, 1)
  }
  tick()
  const started = performance.now()
  let out: string
  try {
    const result = (await work()) as { html: string }
    out = `${(result.html.length / 1024 / 1024).toFixed(1)} MiB`
  } catch (error) {
    if (!(error instanceof PageTooLarge)) throw error
    out = 'refused (cap)'
  }
  const total = performance.now() - started
  ticking = false
  await new Promise((resolve) => setTimeout(resolve, 5))
  return { total, longest: Math.max(longest, performance.now() - last), out }
}

console.log(`page size ${SIZE} bytes, cap 4 MiB; times in ms`)
console.log('| page | result | render | longest stall, yielding | stall without yielding | ratio |')
console.log('|---|---|---:|---:|---:|---:|')
for (const [name, make] of Object.entries(PAGES)) {
  const text = make(SIZE)
  const options = { pageHref: () => undefined }
  const yielding = await stall(() => renderMarkdownYielding(text, options))
  const blocking = await stall(() => renderMarkdown(text, options))
  console.log(
    `| ${name} | ${yielding.out} | ${yielding.total.toFixed(0)} | ${yielding.longest.toFixed(0)} | ` +
      `${blocking.longest.toFixed(0)} | ${(yielding.longest / blocking.longest).toFixed(2)} |`,
  )
}
