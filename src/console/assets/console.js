// The Trellis console (src/console/): signs in with a token kept in sessionStorage, sends it as a bearer token on
// each fetch (never in a URL), and renders what the server answers. Charts arrive as HTML made on the server.
;(() => {
  const KEY = 'trellis-console-token'
  const LIVE_MS = 3000
  const $ = (id) => document.getElementById(id)
  let session
  let tokens = []
  let liveTimer
  let previous

  /** An element with attributes and children (strings become text: nothing here is parsed as HTML). */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag)
    for (const [name, value] of Object.entries(attributes ?? {})) {
      if (value === false || value === undefined || value === null) continue
      node.setAttribute(name, value === true ? '' : String(value))
    }
    for (const child of children.flat()) if (child !== undefined && child !== null) node.append(child)
    return node
  }

  async function api(path, init = {}) {
    const token = sessionStorage.getItem(KEY)
    const headers = { authorization: `Bearer ${token}`, ...(init.headers ?? {}) }
    const response = await fetch(path, { ...init, headers, cache: 'no-store' })
    if (response.status === 401) {
      signOut('The token was refused (unknown, revoked or expired): sign in again.')
      throw new Error('signed out')
    }
    if (!response.ok) {
      let message = `${response.status} ${response.statusText}`
      try {
        const body = await response.json()
        message = body.message ?? body.error?.message ?? message
      } catch {}
      throw new Error(message)
    }
    return response
  }

  function show(signedIn) {
    $('sign-in').hidden = signedIn
    for (const id of ['tokens', 'usage', 'live', 'sections', 'who', 'sign-out']) $(id).hidden = !signedIn
  }

  async function signIn(token) {
    sessionStorage.setItem(KEY, token)
    try {
      session = await (await api('/console/api/session')).json()
    } catch (error) {
      sessionStorage.removeItem(KEY)
      if (error.message !== 'signed out') $('sign-in-error').textContent = `Sign-in failed: ${error.message}`
      return
    }
    $('sign-in-error').textContent = ''
    $('sign-in-token').value = ''
    document.body.classList.toggle('read-only', !session.can_change_tokens)
    $('who').textContent = `${session.owner} (${session.can_change_tokens ? 'admin' : 'read-only'})`
    show(true)
    await Promise.all([loadTokens(), loadChart()])
    startLive()
  }

  function signOut(message) {
    sessionStorage.removeItem(KEY)
    session = undefined
    clearInterval(liveTimer)
    previous = undefined
    show(false)
    $('created').hidden = true
    $('created-secret').textContent = ''
    $('sign-in-error').textContent = message ?? ''
    $('sign-in-token').focus()
  }

  // Tokens

  async function loadTokens() {
    try {
      tokens = (await (await api('/console/api/tokens')).json()).data
      $('tokens-error').textContent = ''
      renderTokens()
    } catch (error) {
      if (error.message !== 'signed out') $('tokens-error').textContent = `Tokens: ${error.message}`
    }
  }

  const format = new Intl.NumberFormat('en-US')
  /** Integer micro-dollars as exact dollars with 6 decimals, as the server's tables show them. */
  const usd = (micros) => `$${format.format(Math.trunc(micros / 1e6))}.${String(micros % 1e6).padStart(6, '0')}`

  function meter(label, used, limit) {
    if (!limit) return el('p', { class: 'use' }, `${label}: ${format.format(used)} (no limit)`)
    const id = `m-${Math.random().toString(36).slice(2)}`
    return el(
      'p',
      { class: 'use' },
      el('label', { for: id }, `${label}: ${format.format(used)} of ${format.format(limit)}`),
      el('meter', { id, min: 0, max: limit, value: Math.min(used, limit), high: limit * 0.8, optimum: 0 }),
    )
  }

  function renderTokens() {
    const query = $('token-search').value.trim().toLowerCase()
    const rows = tokens.filter((token) =>
      [token.id, token.owner, ...token.scopes, ...(token.models ?? [])].some((text) => text.toLowerCase().includes(query)),
    )
    const body = $('token-table').tBodies[0]
    body.replaceChildren(
      ...rows.map((token) => {
        const limits = token.effective_limits
        const revoked = token.revoked_at !== null
        const actions = []
        if (session?.can_change_tokens && !revoked) {
          actions.push(el('button', { type: 'button', 'data-edit': token.id }, 'Edit'))
          actions.push(el('button', { type: 'button', 'data-revoke': token.id, class: 'danger' }, 'Revoke'))
        }
        return el(
          'tr',
          { 'data-token': token.id, class: revoked ? 'revoked' : undefined },
          el('th', { scope: 'row' }, el('span', { class: 'mono' }, token.id), el('br'), token.owner, revoked ? ' (revoked)' : ''),
          el('td', {}, token.scopes.join(', '), el('br'), token.models ? `models: ${token.models.join(', ')}` : 'every model'),
          el(
            'td',
            {},
            meter('Requests this minute', token.usage.minute_requests, limits.rpm),
            meter('Tokens this minute', token.usage.minute_tokens, limits.tpm),
            meter('Tokens this month', token.usage.month_tokens, limits.budget_tokens),
            limits.budget_usd
              ? meter('Cost this month (US cents)', Math.round(token.usage.month_cost_micros / 10_000), Math.round(limits.budget_usd * 100))
              : el('p', { class: 'use' }, `Cost this month: ${usd(token.usage.month_cost_micros)}`),
            limits.streams ? el('p', { class: 'use' }, `Streams at once: at most ${format.format(limits.streams)}`) : null,
          ),
          el('td', {}, token.expires_at ? token.expires_at.replace('T', ' ').slice(0, 16) : 'never'),
          el('td', {}, actions),
        )
      }),
    )
  }

  function limitsFrom(form, forChange) {
    const limits = {}
    for (const name of ['rpm', 'tpm', 'streams', 'budget_tokens', 'budget_usd']) {
      const input = form.elements.namedItem(name)
      if (!input) continue
      const value = input.value.trim()
      if (value !== '') limits[name] = Number(value)
      else if (forChange) limits[name] = null
    }
    return limits
  }

  function modelsFrom(form) {
    const models = form.elements.namedItem('models').value.split(',').map((model) => model.trim()).filter(Boolean)
    return models.length ? models : undefined
  }

  function expiryFrom(form) {
    const value = form.elements.namedItem('expires_at').value
    return value ? new Date(`${value}Z`).toISOString() : undefined
  }

  async function createToken(event) {
    event.preventDefault()
    const form = event.target
    const body = {
      owner: form.elements.namedItem('owner').value.trim(),
      scopes: [...form.querySelectorAll('input[name="scopes"]:checked')].map((box) => box.value),
      limits: limitsFrom(form, false),
      models: modelsFrom(form),
      expires_at: expiryFrom(form),
    }
    try {
      const response = await api('/admin/tokens', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const created = await response.json()
      $('create-error').textContent = ''
      $('created-secret').textContent = created.token
      $('copy-status').textContent = ''
      $('created').hidden = false
      form.reset()
      $('copy-secret').focus()
      await loadTokens()
    } catch (error) {
      if (error.message !== 'signed out') $('create-error').textContent = `Not created: ${error.message}`
    }
  }

  async function copySecret() {
    const secret = $('created-secret').textContent
    try {
      await navigator.clipboard.writeText(secret)
      $('copy-status').textContent = 'Copied.'
    } catch {
      const range = document.createRange()
      range.selectNodeContents($('created-secret'))
      getSelection().removeAllRanges()
      getSelection().addRange(range)
      $('copy-status').textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.'
    }
  }

  let editing
  function openEdit(id) {
    const token = tokens.find((candidate) => candidate.id === id)
    if (!token) return
    editing = token
    const form = $('edit-form')
    form.reset()
    $('edit-id').textContent = `${token.id} (${token.owner})`
    for (const [name, value] of Object.entries(token.limits ?? {})) {
      const input = form.elements.namedItem(name)
      if (input) input.value = String(value)
    }
    form.elements.namedItem('models').value = (token.models ?? []).join(', ')
    form.elements.namedItem('expires_at').value = token.expires_at ? token.expires_at.slice(0, 16) : ''
    $('edit-error').textContent = ''
    $('edit').showModal()
  }

  async function saveEdit(event) {
    event.preventDefault()
    const form = event.target
    const change = {
      limits: limitsFrom(form, true),
      models: modelsFrom(form) ?? null,
      expires_at: expiryFrom(form) ?? null,
    }
    try {
      await api(`/admin/tokens/${encodeURIComponent(editing.id)}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(change),
      })
      $('edit').close()
      await loadTokens()
    } catch (error) {
      if (error.message !== 'signed out') $('edit-error').textContent = `Not saved: ${error.message}`
    }
  }

  async function revoke(button) {
    const id = button.getAttribute('data-revoke')
    // Two presses, so a stray Enter never revokes: the first turns the button into the confirmation.
    if (button.getAttribute('data-armed') !== 'true') {
      button.setAttribute('data-armed', 'true')
      button.textContent = 'Confirm revoke'
      return
    }
    try {
      await api(`/admin/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' })
      await loadTokens()
    } catch (error) {
      if (error.message !== 'signed out') $('tokens-error').textContent = `Not revoked: ${error.message}`
    }
  }

  // Usage

  function chartQuery() {
    const form = $('chart-form')
    const bucket = form.elements.namedItem('bucket').value
    const days = form.elements.namedItem('days')
    // An hourly chart covers a week at most (the server refuses more).
    for (const option of days.options) option.disabled = bucket === 'hour' && Number(option.value) > 7
    if (days.selectedOptions[0]?.disabled) days.value = '7'
    const params = new URLSearchParams()
    for (const name of ['by', 'measure', 'bucket', 'days']) params.set(name, form.elements.namedItem(name).value)
    return params.toString()
  }

  async function loadChart() {
    try {
      const html = await (await api(`/console/api/usage?${chartQuery()}`)).text()
      $('chart').innerHTML = html
      $('chart-error').textContent = ''
    } catch (error) {
      if (error.message !== 'signed out') $('chart-error').textContent = `Chart: ${error.message}`
    }
  }

  async function downloadCsv() {
    try {
      const query = chartQuery()
      const blob = await (await api(`/console/api/usage.csv?${query}`)).blob()
      const link = el('a', { href: URL.createObjectURL(blob), download: `trellis-usage-${query.replace(/[&=]/g, '-')}.csv` })
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
    } catch (error) {
      if (error.message !== 'signed out') $('chart-error').textContent = `CSV: ${error.message}`
    }
  }

  // Live

  function startLive() {
    clearInterval(liveTimer)
    previous = undefined
    void sampleLive()
    liveTimer = setInterval(sampleLive, LIVE_MS)
  }

  async function sampleLive() {
    let sample
    try {
      sample = await (await api('/console/api/live')).json()
    } catch {
      return
    }
    $('live-streams').textContent = format.format(sample.streams_in_flight)
    $('live-failures').textContent = format.format(sample.upstream_failures)
    if (previous) {
      const seconds = Math.max(0.001, (sample.at_ms - previous.at_ms) / 1000)
      const requests = sample.requests - previous.requests
      const errors = sample.server_errors - previous.server_errors
      const timed = sample.ttft_count - previous.ttft_count
      $('live-rps').textContent = (requests / seconds).toFixed(1)
      $('live-errors').textContent = requests > 0 ? `${((100 * errors) / requests).toFixed(1)} %` : '0 %'
      $('live-latency').textContent =
        timed > 0 ? `${((1000 * (sample.ttft_seconds_sum - previous.ttft_seconds_sum)) / timed).toFixed(0)} ms` : 'no streams'
    }
    previous = sample
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('sign-in-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const token = $('sign-in-token').value.trim()
      if (token) void signIn(token)
    })
    $('sign-out').addEventListener('click', () => signOut())
    $('token-search').addEventListener('input', renderTokens)
    $('create-form').addEventListener('submit', createToken)
    $('copy-secret').addEventListener('click', copySecret)
    $('edit-form').addEventListener('submit', saveEdit)
    $('edit-cancel').addEventListener('click', () => $('edit').close())
    $('token-table').addEventListener('click', (event) => {
      const button = event.target.closest('button')
      if (!button) return
      if (button.hasAttribute('data-edit')) openEdit(button.getAttribute('data-edit'))
      if (button.hasAttribute('data-revoke')) void revoke(button)
    })
    $('chart-form').addEventListener('change', loadChart)
    $('chart-form').addEventListener('submit', (event) => event.preventDefault())
    $('chart-csv').addEventListener('click', downloadCsv)
    const saved = sessionStorage.getItem(KEY)
    if (saved) void signIn(saved)
    else show(false)
  })
})()
