/**
 * "Did you mean …?" for misspelt keys and enum values: the closest candidate within a small edit distance
 * (optimal string alignment, so a swapped pair of letters counts as one edit), ignoring case.
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase()
  const limit = needle.length <= 4 ? 1 : 2
  let lowered = LOWERED.get(candidates)
  if (lowered === undefined) LOWERED.set(candidates, (lowered = candidates.map((candidate) => candidate.toLowerCase())))
  let best: string | undefined
  let bestDistance = limit + 1
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index]
    if (Math.abs(candidate.length - needle.length) >= bestDistance) continue
    const distance = editDistance(needle, lowered[index], bestDistance)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/** Lower-cased candidate lists, for the lists callers keep (schema keys); others are simply recomputed. */
const LOWERED = new WeakMap<readonly string[], string[]>()

// Three reusable rows: suggestions run once per unknown key, and allocating per call dominated their cost.
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)]

/** Edit distance between `a` and `b`, or any value >= `ceiling` once it is known to reach it. */
function editDistance(a: string, b: string, ceiling: number): number {
  if (b.length + 1 > rows[0].length) rows = [new Int32Array(b.length + 1), new Int32Array(b.length + 1), new Int32Array(b.length + 1)]
  let [previousPrevious, previous, current] = rows
  for (let j = 0; j <= b.length; j++) previous[j] = j
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    let rowMinimum = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        value = Math.min(value, previousPrevious[j - 2] + 1)
      }
      current[j] = value
      if (value < rowMinimum) rowMinimum = value
    }
    if (rowMinimum >= ceiling) return ceiling
    ;[previousPrevious, previous, current] = [previous, current, previousPrevious]
  }
  return previous[b.length]
}
