import { escapeHtml } from '../http/html-text'
import type { Cell, ChartData } from './usage'

/**
 * A usage chart as HTML made on the server: stacked bars in inline SVG (no script draws them, so the console's
 * page is one fetch and the server time is all there is to measure), a legend, and a table of the same numbers
 * under it, which is also what a screen reader reads. Colours come from the stylesheet by class (`s0`…`s8`), so
 * light and dark modes need no second drawing.
 */

const WIDTH = 720
const HEIGHT = 220
const LEFT = 56
const BOTTOM = 24
const TOP = 8

const DIMENSION_TITLES = { model: 'Model', owner: 'Owner', token: 'Token' } as const
const MEASURE_TITLES = {
  cost: 'Cost (US dollars)',
  tokens: 'Tokens (prompt + completion)',
  requests: 'Requests',
} as const

const numbers = new Intl.NumberFormat('en-US')
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })
/** Axis labels in dollars: two significant digits, so that a chart of fractions of a cent is not all "$0". */
const cents = new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 2 })

const seriesName = (series: string | null) => series ?? 'Other'
const seriesClass = (data: ChartData, series: string | null) => `s${data.series.indexOf(series)}`
const measureOf = (data: ChartData, cell: Cell) =>
  data.query.measure === 'cost'
    ? cell.cost_micros
    : data.query.measure === 'requests'
      ? cell.requests
      : cell.prompt_tokens + cell.completion_tokens

/** Integer micro-dollars (never negative) as exact dollars with 6 decimals: no float rounding on the way. */
const dollars = (micros: number, whole: (n: number) => string = String) =>
  `${whole(Math.trunc(micros / 1_000_000))}.${String(micros % 1_000_000).padStart(6, '0')}`
/** `$1,234.567890`. */
const usd = (micros: number) => `$${dollars(micros, (n) => numbers.format(n))}`

/** A value of the chart's measure, as its axis and tooltips show it. */
const shown = (data: ChartData, value: number, short = false) =>
  data.query.measure === 'cost'
    ? short
      ? `$${cents.format(value / 1_000_000)}`
      : usd(value)
    : (short ? compact : numbers).format(value)

/** The chart, its legend and its table, as one HTML fragment. */
export function chartHtml(data: ChartData): string {
  const title = `${MEASURE_TITLES[data.query.measure]} by ${data.query.by} per ${data.query.bucket}`
  const range = `${data.buckets[0]} to ${data.buckets.at(-1)}`
  return [
    `<figure class="chart"><figcaption><strong>${escapeHtml(title)}</strong>, ${escapeHtml(range)} (UTC)</figcaption>`,
    svgOf(data, title),
    legendOf(data),
    '</figure>',
    tableOf(data),
  ].join('')
}

function svgOf(data: ChartData, title: string): string {
  const stacks = new Map<string, number>()
  const bars: string[] = []
  const index = new Map(data.buckets.map((bucket, i) => [bucket, i]))
  for (const cell of data.cells) stacks.set(cell.bucket, (stacks.get(cell.bucket) ?? 0) + measureOf(data, cell))
  const max = Math.max(1, ...stacks.values())
  const plotHeight = HEIGHT - TOP - BOTTOM
  const step = (WIDTH - LEFT) / Math.max(1, data.buckets.length)
  const barWidth = Math.max(1, step * 0.8)
  const filled = new Map<string, number>()
  // Largest series at the bottom of each stack, "other" on top: the order of the legend and the table.
  const order = new Map(data.series.map((series, i) => [series, i]))
  const cells = [...data.cells].sort((a, b) => order.get(a.series)! - order.get(b.series)!)
  for (const cell of cells) {
    const value = measureOf(data, cell)
    const i = index.get(cell.bucket)
    if (value === 0 || i === undefined) continue
    const below = filled.get(cell.bucket) ?? 0
    filled.set(cell.bucket, below + value)
    const height = (value / max) * plotHeight
    const y = TOP + plotHeight - ((below + value) / max) * plotHeight
    bars.push(
      `<rect class="${seriesClass(data, cell.series)}" x="${(LEFT + i * step).toFixed(1)}" y="${y.toFixed(1)}" ` +
        `width="${barWidth.toFixed(1)}" height="${Math.max(0.5, height).toFixed(1)}"><title>` +
        `${escapeHtml(`${cell.bucket} ${seriesName(cell.series)}: ${shown(data, value)}`)}</title></rect>`,
    )
  }
  const grid = [0, 0.5, 1].map((fraction) => {
    const y = (TOP + plotHeight - fraction * plotHeight).toFixed(1)
    return (
      `<line class="grid" x1="${LEFT}" x2="${WIDTH}" y1="${y}" y2="${y}"/>` +
      `<text class="axis" x="${LEFT - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">` +
      `${shown(data, max * fraction, true)}</text>`
    )
  })
  const labelled = [...new Set([0, Math.floor((data.buckets.length - 1) / 2), data.buckets.length - 1])]
  const labels = labelled.map((i) => {
    const anchor = i === 0 ? 'start' : i === data.buckets.length - 1 ? 'end' : 'middle'
    const x = i === data.buckets.length - 1 ? WIDTH : LEFT + i * step
    return `<text class="axis" x="${x.toFixed(1)}" y="${HEIGHT - 6}" text-anchor="${anchor}">${escapeHtml(data.buckets[i] ?? '')}</text>`
  })
  const total = [...stacks.values()].reduce((sum, value) => sum + value, 0)
  return `<svg class="bars" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(
    `${title}: ${numbers.format(total)} in all; the table below lists each series`,
  )}">${grid.join('')}${bars.join('')}${labels.join('')}</svg>`
}

function legendOf(data: ChartData): string {
  if (data.series.length === 0) return '<p class="empty">No usage in this range.</p>'
  const items = data.series.map(
    (series) =>
      `<li><span class="swatch ${seriesClass(data, series)}" aria-hidden="true"></span>${escapeHtml(seriesName(series))}</li>`,
  )
  return `<ul class="legend">${items.join('')}</ul>`
}

type Totals = {
  requests: number
  prompt_tokens: number
  completion_tokens: number
  errors: number
  cost_micros: number
}

function tableOf(data: ChartData): string {
  const totals = new Map<string | null, Totals>(data.series.map((series) => [series, empty()]))
  const all = empty()
  for (const cell of data.cells) {
    for (const sum of [totals.get(cell.series)!, all]) {
      sum.requests += cell.requests
      sum.prompt_tokens += cell.prompt_tokens
      sum.completion_tokens += cell.completion_tokens
      sum.errors += cell.errors
      sum.cost_micros += cell.cost_micros
    }
  }
  const row = (name: string, sum: Totals) =>
    `<tr><th scope="row">${escapeHtml(name)}</th>${[sum.requests, sum.prompt_tokens, sum.completion_tokens, sum.errors]
      .map((value) => `<td class="num">${numbers.format(value)}</td>`)
      .join('')}<td class="num">${usd(sum.cost_micros)}</td></tr>`
  return (
    // Focusable, so a keyboard can scroll a table wider than a phone (axe: scrollable-region-focusable).
    `<div class="table-wrap" tabindex="0" role="region" aria-label="Totals by ${data.query.by}">` +
    `<table class="usage-table"><caption>Totals by ${data.query.by}</caption>` +
    `<thead><tr><th scope="col">${DIMENSION_TITLES[data.query.by]}</th><th scope="col" class="num">Requests</th>` +
    '<th scope="col" class="num">Prompt tokens</th><th scope="col" class="num">Completion tokens</th>' +
    '<th scope="col" class="num">Errors</th><th scope="col" class="num">Cost</th></tr></thead>' +
    `<tbody>${data.series.map((series) => row(seriesName(series), totals.get(series)!)).join('')}</tbody>` +
    `<tfoot>${row('Total', all)}</tfoot></table></div>`
  )
}

const empty = (): Totals => ({ requests: 0, prompt_tokens: 0, completion_tokens: 0, errors: 0, cost_micros: 0 })

/** The chart's cells as CSV (RFC 4180), one row per bucket and series. */
export function chartCsv(data: ChartData): string {
  const header = [data.query.bucket, data.query.by, 'requests', 'prompt_tokens', 'completion_tokens', 'errors']
  header.push('cost_micros', 'cost_usd')
  const rows = data.cells.map((cell) =>
    [cell.bucket, seriesName(cell.series), cell.requests, cell.prompt_tokens, cell.completion_tokens, cell.errors]
      .map(csvField)
      .concat(String(cell.cost_micros), dollars(cell.cost_micros))
      .join(','),
  )
  return `${[header.join(','), ...rows].join('\r\n')}\r\n`
}

/**
 * One CSV field: quoted when it holds a comma, quote or line break; and an owner or model name that a spreadsheet
 * would read as a formula (`=`, `+`, `-`, `@`) is prefixed with `'`, since owners are whatever an admin typed.
 */
function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value)
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}
