/**
 * `.mintignore`: files Mintlify leaves out of a published site, in `.gitignore`'s pattern syntax (comments,
 * `!` to re-include, a trailing `/` for folders, a leading `/` to anchor at the root, `*`, `**` and `?`).
 * Matched segment by segment without regular expressions: a pattern such as `*a*a*a…b` would make a
 * backtracking regular expression take exponential time, while this costs at most pattern × path per file.
 */
export class MintIgnore {
  private readonly rules: Rule[] = []

  constructor(text: string) {
    for (const raw of text.split(/\r?\n/).slice(0, MAX_RULES)) {
      let line = raw.trim()
      if (line === '' || line.startsWith('#')) continue
      const negated = line.startsWith('!')
      if (negated) line = line.slice(1)
      const folder = line.endsWith('/')
      line = line.replace(/\/+$/, '')
      if (line === '' || line.length > MAX_PATTERN) continue
      // Without a slash inside, a pattern matches a name at any depth; with one, a path from the root.
      const segments = line.replace(/^\//, '').split('/')
      this.rules.push({ segments: line.includes('/') ? segments : ['**', ...segments], folder, negated })
    }
  }

  /** Whether a file (its `/`-separated path under the docs folder) is left out. */
  ignores(file: string): boolean {
    const parts = file.split('/')
    let ignored = false
    for (const rule of this.rules) if (matches(rule, parts)) ignored = !rule.negated
    return ignored
  }
}

type Rule = { segments: string[]; folder: boolean; negated: boolean }

/** More lines than any real .mintignore, and longer patterns than any real path; the rest are not read. */
const MAX_RULES = 1000
const MAX_PATTERN = 1000

/**
 * Whether the rule's segments match the start of `parts`: the whole path, or (a pattern naming a folder) the
 * folders above the file. The set of path positions reachable after each pattern segment is carried along.
 */
function matches(rule: Rule, parts: string[]): boolean {
  let reachable = new Set<number>([0])
  for (const segment of rule.segments) {
    const next = new Set<number>()
    if (segment === '**') {
      const from = Math.min(...reachable)
      for (let index = from; index <= parts.length; index++) next.add(index)
    } else {
      for (const index of reachable) if (index < parts.length && wildcard(segment, parts[index]!)) next.add(index + 1)
    }
    if (next.size === 0) return false
    reachable = next
  }
  for (const index of reachable)
    if (index > 0 && (index < parts.length || (!rule.folder && index === parts.length))) return true
  return false
}

/** `*` and `?` within one segment, by the greedy method that goes back only to the last `*`: O(pattern × text). */
function wildcard(pattern: string, text: string): boolean {
  let p = 0
  let t = 0
  let star = -1
  let mark = 0
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === text[t])) {
      p++
      t++
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++
      mark = t
    } else if (star !== -1) {
      p = star + 1
      t = ++mark
    } else return false
  }
  while (p < pattern.length && pattern[p] === '*') p++
  return p === pattern.length
}
