/**
 * "Did you mean …?" for misspelt keys and enum values: the closest candidate within a small edit distance
 * (optimal string alignment, so a swapped pair of letters counts as one edit), ignoring case.
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase()
  const limit = needle.length <= 4 ? 1 : 2
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of candidates) {
    const distance = editDistance(needle, candidate.toLowerCase(), bestDistance)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/** Edit distance between `a` and `b`, or any value >= `ceiling` once it is known to reach it. */
function editDistance(a: string, b: string, ceiling: number): number {
  if (Math.abs(a.length - b.length) >= ceiling) return ceiling
  let previousPrevious: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowMinimum = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, previousPrevious[j - 2] + 1)
      }
      current.push(value)
      rowMinimum = Math.min(rowMinimum, value)
    }
    if (rowMinimum >= ceiling) return ceiling
    previousPrevious = previous
    previous = current
  }
  return previous[b.length]
}
