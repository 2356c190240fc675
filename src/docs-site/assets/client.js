// The docs site's only script: the mode toggle, the version picker, the phone menu, tab rows (Tabs and CodeGroup),
// the API playground and copy buttons. Everything else on the page is server-rendered HTML and works without it:
// without script, every tab panel shows under its title and the navigation follows the page on a phone.
;(function () {
  'use strict'
  var root = document.documentElement
  var store = {
    get: function (key) { try { return localStorage.getItem(key) } catch (e) { return null } },
    set: function (key, value) { try { localStorage.setItem(key, value) } catch (e) {} },
  }

  function showMode() {
    var toggle = document.querySelector('button#mode-toggle')
    if (!toggle) return
    var dark = root.dataset.mode === 'dark'
    toggle.setAttribute('aria-pressed', dark ? 'true' : 'false')
  }
  var toggle = document.querySelector('button#mode-toggle')
  if (toggle) {
    toggle.addEventListener('click', function () {
      root.dataset.mode = root.dataset.mode === 'dark' ? 'light' : 'dark'
      store.set('trellis-docs-mode', root.dataset.mode)
      showMode()
    })
  }
  showMode()

  // Anchors with a version are shown only while that version is picked; isDefaultHidden anchors stay hidden
  // until a page inside them is open (the server marks those with data-default-hidden).
  var picker = document.querySelector('select#version-select')
  function showVersion(version) {
    var items = document.querySelectorAll('[data-version]')
    for (var i = 0; i < items.length; i++) {
      var item = items[i]
      item.hidden = item.dataset.version !== version || item.dataset.defaultHidden === 'true'
    }
  }
  if (picker) {
    var saved = store.get('trellis-docs-version')
    var known = Array.prototype.some.call(picker.options, function (option) { return option.value === saved })
    if (saved && known) picker.value = saved
    showVersion(picker.value)
    picker.addEventListener('change', function () {
      store.set('trellis-docs-version', picker.value)
      showVersion(picker.value)
    })
  }

  // The phone layout's menu button: the navigation opens above the page, Escape closes it and gives focus back.
  var menu = document.querySelector('button#nav-toggle')
  var nav = document.getElementById('site-nav')
  function setMenu(open, moveFocus) {
    root.classList.toggle('nav-open', open)
    menu.setAttribute('aria-expanded', open ? 'true' : 'false')
    menu.setAttribute('aria-label', open ? 'Close navigation' : 'Open navigation')
    if (!moveFocus) return
    if (open) {
      var first = nav.querySelector('a[aria-current="page"]') || nav.querySelector('a')
      if (first) first.focus()
    } else menu.focus()
  }
  if (menu && nav) {
    menu.addEventListener('click', function () { setMenu(menu.getAttribute('aria-expanded') !== 'true', true) })
    document.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && menu.getAttribute('aria-expanded') === 'true') setMenu(false, true)
    })
  }

  // Tabs and code groups: a row of tab buttons over their panels (WAI-ARIA tabs: arrows, Home and End move along).
  // As in Mintlify, picking a tab picks the tab of the same name in the page's other tab groups (npm everywhere).
  var tabGroups = 0
  var synced = []
  function syncTabs(from, label) {
    synced.forEach(function (other) { if (other.buttons !== from) other.pick(label) })
  }
  function makeTabs(group, panels, labelOf) {
    if (panels.length === 0) return
    var prefix = 'tabs-' + (++tabGroups)
    var list = document.createElement('div')
    list.className = 'tab-list'
    list.setAttribute('role', 'tablist')
    var buttons = panels.map(function (panel, index) {
      var button = document.createElement('button')
      button.type = 'button'
      button.id = prefix + '-tab-' + index
      button.setAttribute('role', 'tab')
      panel.id = prefix + '-panel-' + index
      panel.setAttribute('role', 'tabpanel')
      panel.setAttribute('aria-labelledby', button.id)
      button.setAttribute('aria-controls', panel.id)
      labelOf(panel, index, button)
      button.addEventListener('click', function () { select(index, false, true) })
      list.appendChild(button)
      return button
    })
    list.addEventListener('keydown', function (event) {
      var current = buttons.indexOf(document.activeElement)
      if (current < 0) return
      var next = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: buttons.length - 1 }[event.key]
      if (next === undefined) return
      event.preventDefault()
      select((next + buttons.length) % buttons.length, true, true)
    })
    function select(chosen, focus, sync) {
      if (sync && !group.classList.contains('tab-group-unsynced')) syncTabs(buttons, buttons[chosen].textContent)
      buttons.forEach(function (button, index) {
        var on = index === chosen
        button.setAttribute('aria-selected', on ? 'true' : 'false')
        button.tabIndex = on ? 0 : -1
        panels[index].hidden = !on
      })
      if (focus) buttons[chosen].focus()
    }
    group.insertBefore(list, group.firstChild)
    group.classList.add('tab-ready')
    select(0, false, false)
    if (!group.classList.contains('tab-group-unsynced')) synced.push({
      buttons: buttons,
      pick: function (label) {
        for (var b = 0; b < buttons.length; b++) if (buttons[b].textContent === label) return select(b, false, false)
      },
    })
  }
  function childrenOf(group, test) {
    return Array.prototype.filter.call(group.children, test)
  }
  var tabSets = document.querySelectorAll('.tab-group')
  for (var t = 0; t < tabSets.length; t++) {
    makeTabs(tabSets[t], childrenOf(tabSets[t], function (child) { return child.classList.contains('tab-panel') }),
      function (panel, index, button) {
        var title = panel.querySelector('.tab-title')
        if (!title) button.textContent = 'Tab ' + (index + 1)
        else for (var n = 0; n < title.childNodes.length; n++) button.appendChild(title.childNodes[n].cloneNode(true))
      })
  }
  var codeGroups = document.querySelectorAll('.code-group')
  for (var g = 0; g < codeGroups.length; g++) {
    makeTabs(codeGroups[g], childrenOf(codeGroups[g], function (child) { return child.tagName === 'PRE' }),
      function (pre, index, button) {
        var code = pre.querySelector('code')
        var language = code && /language-(\S+)/.exec(code.className)
        button.textContent = pre.title || (language ? language[1] : 'Code ' + (index + 1))
        pre.tabIndex = 0
      })
  }

  // A code block (in any tab) or a table wider than the screen scrolls inside itself; keyboard users reach it by Tab.
  var scrollers = document.querySelectorAll('.prose pre, .prose table')
  for (var k = 0; k < scrollers.length; k++) {
    var scroller = scrollers[k]
    if (scroller.tagName === 'PRE' || scroller.scrollWidth > scroller.clientWidth) scroller.tabIndex = 0
  }

  var relative = document.querySelectorAll('[data-relative-base]')
  for (var r = 0; r < relative.length; r++) {
    var node = relative[r]
    // A code sample names the URL in quotes (curl's in single, Python's and JavaScript's in double ones).
    node.textContent = node.dataset.relativeBase === 'quoted' || node.classList.contains('curl')
      ? node.textContent.replace(/(['"])\//, '$1' + location.origin + '/')
      : location.origin + node.textContent
  }

  var copies = document.querySelectorAll('.copy-button')
  for (var c = 0; c < copies.length; c++) {
    copies[c].addEventListener('click', function (event) {
      var button = event.currentTarget
      var code = button.parentNode.querySelector('code')
      if (!code || !navigator.clipboard) return
      navigator.clipboard.writeText(code.textContent).then(function () {
        button.textContent = 'Copied'
        setTimeout(function () { button.textContent = 'Copy' }, 1500)
      })
    })
  }

  var playgrounds = document.querySelectorAll('.playground')
  for (var p = 0; p < playgrounds.length; p++) setUpPlayground(playgrounds[p])

  function setUpPlayground(section) {
    var data = JSON.parse(section.querySelector('.playground-data').textContent)
    var form = section.querySelector('form')
    var output = section.querySelector('.playground-response')
    form.addEventListener('submit', function (event) {
      event.preventDefault()
      var request
      try {
        request = buildRequest(data, form)
      } catch (error) {
        return show(output, 'Not sent: ' + error.message, '', '')
      }
      show(output, 'Sending ' + data.method + ' ' + request.url + ' …', '', '')
      fetch(request.url, request.init).then(function (response) {
        return response.text().then(function (text) {
          var headers = ''
          response.headers.forEach(function (value, name) { headers += name + ': ' + value + '\n' })
          show(output, response.status + ' ' + response.statusText, headers, pretty(text))
        })
      }, function (error) {
        show(output, 'The request failed: ' + error.message + ' (is the API reachable from this page, and does it allow this origin?)', '', '')
      })
    })
  }

  function buildRequest(data, form) {
    var select = form.querySelector('select[name="baseUrl"]')
    var base = select ? select.value : data.baseUrls.length > 0 ? data.baseUrls[0] : location.origin
    var path = data.path
    var query = []
    var headers = {}
    var inputs = form.querySelectorAll('input[data-in]')
    for (var i = 0; i < inputs.length; i++) {
      var input = inputs[i]
      var name = input.dataset.name
      var value = input.value
      if (input.dataset.in === 'path') {
        if (value === '') throw new Error('the path parameter ' + name + ' is required')
        path = path.split('{' + name + '}').join(encodeURIComponent(value))
      } else if (value !== '') {
        if (input.dataset.in === 'query') query.push(encodeURIComponent(name) + '=' + encodeURIComponent(value))
        else headers[name] = value
      }
    }
    if (data.auth) {
      if (data.auth.method === 'basic') {
        var user = form.querySelector('input[name="authUser"]').value
        var password = form.querySelector('input[name="authPassword"]').value
        if (user !== '' || password !== '') headers.Authorization = 'Basic ' + btoa(user + ':' + password)
      } else {
        var credential = form.querySelector('input[name="auth"]').value.trim()
        if (credential !== '' && credential !== (data.auth.inputPrefix || '').trim()) {
          if (data.auth.method === 'key') headers[data.auth.name || 'X-API-Key'] = credential
          else headers.Authorization = /^bearer\s/i.test(credential) ? credential : 'Bearer ' + credential
        }
      }
    }
    var init = { method: data.method, headers: headers }
    var body = form.querySelector('textarea[name="body"]')
    if (data.jsonBody && body && body.value.trim() !== '') {
      headers['Content-Type'] = 'application/json'
      init.body = body.value
    }
    var url = base.replace(/\/+$/, '') + path + (query.length > 0 ? '?' + query.join('&') : '')
    return { url: url, init: init }
  }

  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2) } catch (e) { return text }
  }

  function show(output, status, headers, body) {
    output.hidden = false
    output.querySelector('.playground-status').textContent = status
    output.querySelector('.playground-headers').textContent = headers
    output.querySelector('.playground-body').textContent = body
  }
})()
