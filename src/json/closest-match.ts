/**
 * "Did you mean …?" for misspelt keys and enum values: the closest candidate within a small edit distance
 * (optimal string alignment, so a swapped pair of letters counts as one edit), ignoring case.
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase()
  const limit = needle.length <= 4 ? 1 : 2
  let prepared = PREPARED.get(candidates)
  if (prepared === undefined) PREPARED.set(candidates, (prepared = candidates.map(prepare)))
  const needleCounts = countInto(needle, NEEDLE_COUNTS)
  let best: string | undefined
  let bestDistance = limit + 1
  for (let index = 0; index < candidates.length; index++) {
    const candidate = prepared[index]
    if (Math.abs(candidate.lowered.length - needle.length) >= bestDistance) continue
    if (countsBound(needleCounts, candidate.counts, bestDistance) >= bestDistance) continue
    const distance = editDistance(needle, candidate.lowered, bestDistance)
    if (distance < bestDistance) {
      best = candidates[index]
      bestDistance = distance
    }
  }
  return best
}

type Prepared = { lowered: string; counts: Int32Array }

/** Prepared candidate lists, for the lists callers keep (schema keys); others are simply recomputed. */
const PREPARED = new WeakMap<readonly string[], Prepared[]>()

const BUCKETS = 32

function prepare(word: string): Prepared {
  const lowered = word.toLowerCase()
  return { lowered, counts: countInto(lowered, new Int32Array(BUCKETS)) }
}

/** The needle's counts are needed only during one call, so they reuse one array. */
const NEEDLE_COUNTS = new Int32Array(BUCKETS)

function countInto(word: string, counts: Int32Array): Int32Array {
  for (let bucket = 0; bucket < BUCKETS; bucket++) counts[bucket] = 0
  for (let index = 0; index < word.length; index++) counts[word.charCodeAt(index) & (BUCKETS - 1)]++
  return counts
}

/**
 * A lower bound of the edit distance from character counts: an insertion or deletion changes the counts by
 * one, a substitution by two, a transposition not at all. Most candidates are ruled out here, without the
 * quadratic comparison; counting stops once the bound reaches `ceiling`.
 */
function countsBound(a: Int32Array, b: Int32Array, ceiling: number): number {
  let difference = 0
  for (let index = 0; index < BUCKETS && difference < 2 * ceiling; index++) difference += Math.abs(a[index] - b[index])
  return Math.ceil(difference / 2)
}

// Three reusable rows: suggestions run once per unknown key, and allocating per call dominated their cost.
let rowA = new Int32Array(64)
let rowB = new Int32Array(64)
let rowC = new Int32Array(64)

/** Edit distance between `a` and `b`, or any value >= `ceiling` once it is known to reach it. */
function editDistance(a: string, b: string, ceiling: number): number {
  if (b.length + 1 > rowA.length) {
    rowA = new Int32Array(b.length + 1)
    rowB = new Int32Array(b.length + 1)
    rowC = new Int32Array(b.length + 1)
  }
  let previousPrevious = rowA
  let previous = rowB
  let current = rowC
  for (let j = 0; j <= b.length; j++) previous[j] = j
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    let rowMinimum = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        value = Math.min(value, previousPrevious[j - 2] + 1)
      }
      current[j] = value
      if (value < rowMinimum) rowMinimum = value
    }
    if (rowMinimum >= ceiling) return ceiling
    const oldest = previousPrevious
    previousPrevious = previous
    previous = current
    current = oldest
  }
  return previous[b.length]
}
