/** A code block of the testing guide that names the file it is: `// tests/x.test.ts` or `# tests/llm.yaml`. */
export type Example = { path: string; text: string }

/**
 * The named code blocks of a Markdown text (the README's "Testing with Trellis" section, or the docs site's testing
 * page), in order: what a reader copies into a project.
 */
export function namedExamples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```(ts|yaml)\n([\s\S]*?)```/g)]
  return blocks.flatMap(([, language, text]) => {
    const named = (language === 'ts' ? /^\/\/ (\S+\.test\.ts)\n/ : /^# (\S+\.ya?ml)\n/).exec(text!)
    return named ? [{ path: named[1]!, text: text! }] : []
  })
}

/** The README's "Testing with Trellis" section. */
export function testingSection(readme: string): string {
  const start = readme.indexOf('\n## Testing with Trellis')
  return readme.slice(start, readme.indexOf('\n## ', start + 1))
}
