// The site's search dialog: ⌘K / Ctrl-K or "/" opens it, results come from GET /docs/search as you type, the arrow
// keys move through them and Enter opens one. Appended to client.js (see assets.ts); without it the button stays hidden.
;(function () {
  'use strict'
  var opener = document.querySelector('button[data-search-open]')
  if (!opener || !window.fetch || !window.HTMLDialogElement || !window.DOMParser) return
  opener.hidden = false
  var isMac = /Mac|iPhone|iPad/.test(navigator.platform || '')
  var hint = opener.querySelector('kbd')
  if (hint) hint.textContent = isMac ? '⌘K' : 'Ctrl K'

  var dialog = document.createElement('dialog')
  dialog.className = 'search-dialog'
  dialog.setAttribute('aria-label', 'Search the documentation')
  dialog.innerHTML =
    '<div class="search-box" role="search">' +
    '<label class="visually-hidden" for="search-input">Search the documentation</label>' +
    '<input id="search-input" type="search" role="combobox" aria-expanded="false" aria-controls="search-results" ' +
    'aria-autocomplete="list" autocomplete="off" spellcheck="false" maxlength="200" placeholder="Search…">' +
    '<button type="button" class="search-close" aria-label="Close search">Esc</button></div>' +
    '<ul id="search-results" role="listbox" aria-label="Search results"></ul>' +
    '<p class="search-status" role="status" aria-live="polite"></p>'
  document.body.appendChild(dialog)
  var input = dialog.querySelector('input')
  var list = dialog.querySelector('ul')
  var status = dialog.querySelector('.search-status')
  var results = []
  var active = -1
  var timer = 0
  var pending = null

  function open() {
    if (!dialog.open) dialog.showModal()
    input.focus()
    input.select()
  }
  function close() {
    if (dialog.open) dialog.close()
  }

  // A snippet is escaped text with <mark> around the matched words; it is parsed inert and only text and <mark> kept.
  function snippetNodes(html) {
    var parsed = new DOMParser().parseFromString('<p>' + html + '</p>', 'text/html').body.firstChild
    var nodes = []
    for (var node = parsed ? parsed.firstChild : null; node; node = node.nextSibling) {
      if (node.nodeName === 'MARK') {
        var mark = document.createElement('mark')
        mark.textContent = node.textContent
        nodes.push(mark)
      } else nodes.push(document.createTextNode(node.textContent || ''))
    }
    return nodes
  }

  function select(index) {
    var options = list.querySelectorAll('[role="option"]')
    if (options.length === 0) return
    active = (index + options.length) % options.length
    for (var i = 0; i < options.length; i++) options[i].setAttribute('aria-selected', i === active ? 'true' : 'false')
    input.setAttribute('aria-activedescendant', options[active].id)
    options[active].scrollIntoView({ block: 'nearest' })
  }

  function show(found, query) {
    results = found
    active = -1
    list.textContent = ''
    input.removeAttribute('aria-activedescendant')
    for (var i = 0; i < found.length; i++) {
      var result = found[i]
      var item = document.createElement('li')
      item.id = 'search-option-' + i
      item.setAttribute('role', 'option')
      item.setAttribute('aria-selected', 'false')
      var link = document.createElement('a')
      link.href = result.url
      link.tabIndex = -1
      var title = document.createElement('span')
      title.className = 'search-title'
      title.textContent = result.heading ? result.title + ' › ' + result.heading : result.title
      if (result.kind === 'operation') title.className += ' search-operation'
      var snippet = document.createElement('span')
      snippet.className = 'search-snippet'
      var nodes = snippetNodes(result.snippet || '')
      for (var n = 0; n < nodes.length; n++) snippet.appendChild(nodes[n])
      link.appendChild(title)
      link.appendChild(snippet)
      item.appendChild(link)
      list.appendChild(item)
    }
    input.setAttribute('aria-expanded', found.length > 0 ? 'true' : 'false')
    status.textContent =
      found.length === 0 ? 'No results for “' + query + '”' : found.length + (found.length === 1 ? ' result' : ' results')
    if (found.length > 0) select(0)
  }

  function search() {
    var query = input.value.trim()
    if (pending) pending.abort()
    if (query === '') {
      show([], '')
      status.textContent = ''
      return
    }
    var controller = window.AbortController ? new AbortController() : null
    pending = controller
    fetch('/docs/search?limit=10&q=' + encodeURIComponent(query.slice(0, 200)), {
      headers: { accept: 'application/json' },
      signal: controller ? controller.signal : undefined,
    })
      .then(function (response) {
        if (!response.ok) throw new Error('search answered ' + response.status)
        return response.json()
      })
      .then(function (body) {
        if (pending === controller) show(body.results || [], query)
      })
      .catch(function (error) {
        if (error && error.name === 'AbortError') return
        status.textContent = 'Search is unavailable right now.'
      })
  }

  input.addEventListener('input', function () {
    clearTimeout(timer)
    timer = setTimeout(search, 120)
  })
  input.addEventListener('keydown', function (event) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      select(active + (event.key === 'ArrowDown' ? 1 : -1))
    } else if (event.key === 'Escape') {
      // A search field's own Escape only clears it; here it closes the dialog, as everywhere else in it.
      event.preventDefault()
      close()
    } else if (event.key === 'Enter' && active >= 0 && results[active]) {
      event.preventDefault()
      close()
      window.location.href = results[active].url
    }
  })
  list.addEventListener('click', function (event) {
    if (event.target.closest && event.target.closest('a')) close()
  })
  // A click on the backdrop (the dialog itself, outside its box) closes it.
  dialog.addEventListener('click', function (event) {
    if (event.target === dialog) close()
  })
  dialog.querySelector('.search-close').addEventListener('click', close)
  opener.addEventListener('click', open)

  document.addEventListener('keydown', function (event) {
    var key = (event.key || '').toLowerCase()
    if (key === 'k' && (event.metaKey || event.ctrlKey) && !event.altKey) {
      event.preventDefault()
      if (dialog.open) close()
      else open()
      return
    }
    var target = event.target
    var typing =
      target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName || ''))
    if (key === '/' && !typing && !event.metaKey && !event.ctrlKey && !event.altKey && !dialog.open) {
      event.preventDefault()
      open()
    }
  })
})()
