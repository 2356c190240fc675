/**
 * A problem found in a parsed docs.json before it is given a line and column. `path` is what is reported;
 * `at` and `part` say which node's position to report (a missing property is reported at its parent object).
 */
export interface Finding {
  severity: 'error' | 'warning'
  path: string
  at: string
  part: 'key' | 'value'
  message: string
  expected?: string
  received?: string
  suggestion?: string
}
