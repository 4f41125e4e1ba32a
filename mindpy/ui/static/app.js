'use strict'
// The dashboard page: the agents' cards (live over /ws), steering, the map, the 3D view, evaluations and transcripts.

const $ = sel => document.querySelector(sel)
const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]))
const state = { agents: [], cards: new Map(), run: null, evals: [], info: {}, lastUpdate: 0 }
window.dashboard = state // for people poking around in the console (and the tests)

async function api (path, body) {
  const options = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
  const response = await fetch(path, options)
  const data = await response.json().catch(() => ({}))
  if (!response.ok) throw new Error(data.detail || data.error || response.statusText)
  return data
}

// ---- the live feed ------------------------------------------------------------------------------------------
function connect () {
  const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`)
  socket.onopen = () => { $('#status').textContent = 'live'; $('#status').className = 'status live' }
  socket.onclose = () => {
    $('#status').textContent = 'disconnected: retrying'
    $('#status').className = 'status'
    setTimeout(connect, 1000)
  }
  socket.onmessage = event => {
    let message = JSON.parse(event.data)
    if (message.type === 'agents') {
      // only the cards that changed come (all of them the first time: full), each whole the first time and then
      // only its fields that changed; removed: the agents gone
      if (message.full) state.cards = new Map()
      for (const name of message.removed || []) state.cards.delete(name)
      const changed = message.agents.map(patch => {
        const a = { ...(state.cards.get(patch.name) || {}), ...patch }
        state.cards.set(a.name, a)
        return a
      })
      state.agents = [...state.cards.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
      state.run = message.run
      state.lastUpdate = Date.now()
      renderAgents(message.full ? null : changed)
    } else if (message.type === 'map') {
      state.map = { ...(state.map || {}), ...message } // only the map's parts that changed come
      message = state.map
      drawMap($('#map'), message)
      $('#map-info').textContent = `x ${message.x0}…${message.x0 + message.size - 1}, z ${message.z0}…${message.z0 + message.size - 1}; read by ${message.read_by}`
    } else if (message.type === 'evals') {
      state.evals = message.evals
      renderAgents()
      route()
    }
  }
}

// ---- agents ---------------------------------------------------------------------------------------------------
function card (name) {
  let el = document.querySelector(`.card[data-agent="${CSS.escape(name)}"]`)
  if (el) return el
  el = document.createElement('div')
  el.className = 'card'
  el.dataset.agent = name
  el.innerHTML = `
    <div class="card-head"><h2>${esc(name)}</h2><span class="model"></span><span class="where"></span>
      <span class="buttons">
        <button class="stop" title="stop the running action">Stop</button>
        <button class="restart danger" title="restart the agent with its saved memory">Restart</button>
        <button class="view3d" title="show the bot in 3D">3D</button>
      </span></div>
    <div class="row vitals"></div>
    <div class="row doing"></div>
    <div class="row goal" title="click to show all of it"></div>
    <div class="row partners"></div>
    <div class="row"><span class="label">modes</span><span class="chips modes"></span></div>
    <div class="row"><span class="label">inventory</span><span class="chips inventory"></span></div>
    <div class="events"></div>
    <form class="say"><input name="text" placeholder="say something or a !command" autocomplete="off"><button>Send</button></form>
    <div class="flash"></div>
    <div class="row spend muted"></div>`
  el.querySelector('.stop').onclick = () => control(name, 'stop')
  el.querySelector('.restart').onclick = () => control(name, 'restart')
  el.querySelector('.view3d').onclick = () => openView(name)
  el.querySelector('.goal').onclick = event => event.currentTarget.classList.toggle('open')
  el.querySelector('.say').onsubmit = event => {
    event.preventDefault()
    const input = event.target.elements.text
    if (!input.value.trim()) return
    control(name, 'say', { text: input.value })
    input.value = ''
  }
  el.querySelector('.modes').onclick = event => {
    const chip = event.target.closest('span[data-mode]')
    if (chip) control(name, 'mode', { mode: chip.dataset.mode, on: !chip.classList.contains('on') })
  }
  $('#cards').appendChild(el)
  if (window.onCardCreated) window.onCardCreated(el, name) // the control panel's buttons (manage.js)
  return el
}

async function control (name, what, body) {
  const flash = card(name).querySelector('.flash')
  try {
    const data = await api(`/api/agents/${encodeURIComponent(name)}/${what}`, body || {})
    flash.textContent = data.message || ''
  } catch (err) {
    flash.textContent = `${what}: ${err.message}`
  }
}

function bar (value, max, colour) {
  const share = Math.max(0, Math.min(1, (value ?? 0) / max))
  return `<span class="bar"><i style="width:${share * 100}%;background:${colour}"></i></span> ${value ?? '?'}/${max}`
}

function set (el, selector, html) {
  const part = el.querySelector(selector)
  if (part.dataset.html !== html) { part.innerHTML = html; part.dataset.html = html }
}

function renderAgents (changed) {
  $('#no-agents').hidden = state.agents.length > 0
  $('#no-agents').textContent = state.evals.length
    ? 'No agents are running in this process: an evaluation plays each episode in a process of its own (see Evaluation for its progress and transcripts).'
    : 'No agents are running in this process.'
  const names = new Set(state.agents.map(a => a.name))
  for (const el of document.querySelectorAll('.card')) if (!names.has(el.dataset.agent)) el.remove()
  for (const a of changed || state.agents) {
    const el = card(a.name)
    el.classList.toggle('gone', !!a.gone)
    for (const button of el.querySelectorAll('button, input')) button.disabled = !!a.gone
    set(el, '.model', esc(a.model))
    set(el, '.where', (a.process ? `<span class="process" title="this agent runs in worker process ${a.process}">worker ${a.process}</span>` : '') +
      (a.gone ? ` <span class="gone-note">gone: ${esc(a.gone)}</span>` : ''))
    const w = a.world
    set(el, '.vitals', w
      ? `<div><span class="label">at</span><span class="pos">${w.position.x}, ${w.position.y}, ${w.position.z}</span>
         &nbsp;<span class="label">holds</span><span class="held">${esc(w.held || 'nothing')}</span></div>
         <div><span class="label">health</span>${bar(w.health, 20, '#e0605a')}
         &nbsp;<span class="label">hunger</span>${bar(w.hunger, 20, '#c8914a')}</div>`
      : `<span class="muted">world not readable: ${esc(a.world_error)}</span>`)
    set(el, '.doing', `<span class="label">doing</span><span class="action">${esc(a.action ? a.action.replace(/^action:/, '!') : (a.idle ? 'idle' : 'thinking'))}</span>`)
    set(el, '.goal', `<span class="label">goal</span>${a.goal ? `<span class="muted">(${esc(a.goal_state)})</span> ${esc(a.goal)}` : '<span class="muted">none</span>'}`)
    set(el, '.partners', `<span class="label">talking with</span>${a.partners.length ? a.partners.map(p => esc(p.name) + (p.active ? '' : ' (waiting)')).join(', ') : '<span class="muted">nobody</span>'}`)
    set(el, '.modes', Object.entries(a.modes).map(([m, on]) => `<span data-mode="${esc(m)}" class="${on ? 'on' : 'off'}">${esc(m)}</span>`).join(''))
    const items = w ? Object.entries(w.inventory) : []
    set(el, '.inventory', items.length ? items.map(([item, n]) => `<span data-item="${esc(item)}">${esc(item)} ×${n}</span>`).join('') : '<span class="muted">empty</span>')
    const events = el.querySelector('.events')
    const html = a.events.map(e => `<div class="ev ${esc(e.kind.replace(/ /g, '-'))}"><span class="k">${new Date(e.t * 1000).toLocaleTimeString()} ${esc(e.kind)}:</span> ${esc(e.text)}</div>`).join('')
    if (events.dataset.html !== html) {
      const atBottom = events.scrollTop + events.clientHeight >= events.scrollHeight - 8
      events.innerHTML = html
      events.dataset.html = html
      if (atBottom) events.scrollTop = events.scrollHeight
    }
    const s = a.spend
    set(el, '.spend', `${s.calls} model calls, ${s.prompt_tokens + s.completion_tokens} tokens (${s.prompt_tokens} in, ${s.completion_tokens} out)${s.usd === null ? ', price unknown' : `, $${s.usd.toFixed(4)}`}`)
  }
  renderRun()
  renderCentres()
}

function renderRun () {
  const task = state.run && state.run.task
  const html = task
    ? `task <b>${esc(task.id)}</b> (${esc(task.type)}) ${task.elapsed !== null ? `${Math.round(task.elapsed)} s of ${Math.round(task.timeout)} s` : ''}
       <button id="end-episode" class="danger" ${task.ended ? 'disabled' : ''}>${task.ended ? 'ending…' : 'End episode'}</button>`
    : ''
  if ($('#run').dataset.html !== html) {
    $('#run').innerHTML = html
    $('#run').dataset.html = html
    const button = $('#end-episode')
    if (button) {
      button.onclick = async () => {
        if (!confirm('End this episode now? It is scored as it stands.')) return
        try { await api('/api/episode/end', {}) } catch (err) { alert(err.message) }
      }
    }
  }
}

function renderCentres () {
  const select = $('#map-centre')
  const wanted = ['', ...state.agents.map(a => a.name)]
  const have = [...select.options].map(o => o.value)
  if (wanted.join('\n') === have.join('\n')) return
  const chosen = select.value
  select.innerHTML = wanted.map(n => `<option value="${esc(n)}">${n ? esc(n) : 'all agents'}</option>`).join('')
  select.value = wanted.includes(chosen) ? chosen : ''
}

function mapView () { return api('/api/map', { centre: $('#map-centre').value || null, radius: Number($('#map-radius').value) }) }
$('#map-centre').onchange = mapView
$('#map-radius').onchange = mapView

async function openView (name) {
  const flash = card(name).querySelector('.flash')
  flash.textContent = 'opening the 3D view…'
  try {
    const data = await api(`/api/agents/${encodeURIComponent(name)}/view`, {})
    $('#view-panel').hidden = false
    $('#view-name').textContent = `of ${name}`
    if ($('#view').src !== data.url) $('#view').src = data.url
    flash.textContent = ''
  } catch (err) {
    flash.textContent = `3D view: ${err.message}`
  }
}
$('#view-close').onclick = () => { $('#view-panel').hidden = true; $('#view').src = 'about:blank' }

// ---- evaluations ---------------------------------------------------------------------------------------------
const duration = s => s === null || s === undefined || s === '' ? '' : (s >= 90 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${Math.round(s)} s`)

function renderEvals (k) {
  const evals = state.evals
  $('#eval-list').innerHTML = evals.length > 1
    ? `<p>${evals.map((e, i) => `<a href="#evals/${i}" class="${i === k ? 'active' : ''}">${esc(e.out)}</a>`).join(' · ')}</p>` : ''
  const e = evals[k]
  if (!e) { $('#eval').innerHTML = '<p class="empty">No evaluation in this dashboard.</p>'; return }
  const share = e.total ? e.done / e.total : 0
  const rate = e.success.played ? `${Math.round(100 * e.success.wins / e.success.played)}%` : '–'
  const groups = Object.entries(e.by_group).map(([g, v]) => `<tr><td>${esc(g)}</td><td>${v.wins}/${v.played}</td><td>${Math.round(100 * v.wins / v.played)}%</td></tr>`).join('')
  const rows = e.episodes.map(ep => `<tr class="episode" data-status="${esc(ep.status)}">
      <td><a href="#evals/${k}/episode/${ep.index}">${esc(ep.label)}</a></td><td>${esc(ep.family)}</td><td>${esc(ep.agent_count)}</td>
      <td class="${esc(ep.status)}">${esc(ep.status)}</td><td>${ep.score ?? ''}</td><td>${esc(ep.end_reason || '')}</td>
      <td>${duration(ep.duration_s === undefined || ep.duration_s === null || ep.duration_s === '' ? null : Number(ep.duration_s))}</td><td class="muted">${esc(ep.error || '')}</td></tr>`).join('')
  $('#eval').innerHTML = `
    <h2>${esc(e.out)} <span class="muted">${e.live ? '(playing)' : '(finished run)'}</span></h2>
    <div class="counters">
      <div><b id="eval-done">${e.done}/${e.total}</b>episodes done</div>
      <div><b id="eval-success">${e.success.wins}/${e.success.played}</b>successes (${rate})</div>
      <div><b id="eval-errors">${e.errors}</b>infrastructure errors</div>
      <div><b>${e.playing}</b>playing now</div>
      ${e.live ? `<div><b id="eval-eta">${e.eta_s === null ? '–' : duration(e.eta_s)}</b>left (${duration(e.elapsed_s)} so far)</div>` : ''}
      ${e.skipped ? `<div><b>${e.skipped}</b>tasks skipped</div>` : ''}
    </div>
    <div class="progress"><i style="width:${share * 100}%"></i></div>
    ${groups ? `<table class="groups"><tr><th>family / agents</th><th>successes</th><th>rate</th></tr>${groups}</table>` : ''}
    <table class="episodes"><tr><th>episode</th><th>family</th><th>agents</th><th>status</th><th>score</th><th>end</th><th>time</th><th></th></tr>${rows}</table>`
}

async function renderEpisode (k, i) {
  let data
  try { data = await api(`/api/evals/${k}/episodes/${i}`) } catch (err) { $('#episode').textContent = err.message; return }
  $('#back').href = `#evals/${k}`
  const r = data.result
  const agents = r && r.agents ? Object.entries(r.agents).map(([n, a]) => `<tr><td>${esc(n)}</td><td>${a.commands_used ?? ''}</td><td>${a.messages_sent ?? ''}</td><td>${a.tokens ?? ''}</td></tr>`).join('') : ''
  const lines = data.lines.map(l => `<tr class="ev ${esc(l.kind.replace(/ /g, '-'))}"><td class="muted">${esc(l.time)}</td><td>${esc(l.agent)}</td><td class="k">${esc(l.kind)}</td><td class="text">${esc(l.text)}</td></tr>`).join('')
  $('#episode').innerHTML = `
    <h2>${esc(data.label)}</h2>
    <p class="muted">${esc(data.run_dir)}</p>
    ${r ? `<p>score <b>${r.score}</b>, ended by <b>${esc(r.end_reason)}</b> after ${duration(r.duration_s)}${r.error ? `: <span class="error">${esc(r.error)}</span>` : ''}</p>
      <table><tr><th>agent</th><th>commands</th><th>messages</th><th>tokens</th></tr>${agents}</table>` : '<p class="playing">still playing (reload for more)</p>'}
    <table class="transcript">${lines || '<tr><td class="muted">no console.log yet</td></tr>'}</table>`
}

// ---- pages ---------------------------------------------------------------------------------------------------
function route () {
  const hash = location.hash.replace(/^#/, '')
  const episode = hash.match(/^evals\/(\d+)\/episode\/(\d+)$/)
  const evalPage = hash.match(/^evals(?:\/(\d+))?$/)
  const page = episode ? 'episode' : (evalPage || (!hash && !state.agents.length && state.evals.length)) ? 'evals' : 'agents'
  for (const p of ['agents', 'evals', 'episode']) $(`#page-${p}`).hidden = p !== page
  $('#tab-agents').className = page === 'agents' ? 'active' : ''
  $('#tab-evals').className = page !== 'agents' ? 'active' : ''
  if (page === 'evals') renderEvals(evalPage && evalPage[1] ? Number(evalPage[1]) : 0)
  if (page === 'episode' && route.shown !== hash) renderEpisode(Number(episode[1]), Number(episode[2]))
  route.shown = page === 'episode' ? hash : null
}
window.addEventListener('hashchange', route)

async function start () {
  state.info = await api('/api/info')
  $('#note').textContent = state.info.note || ''
  if (state.info.evals) state.evals = await Promise.all([...Array(state.info.evals).keys()].map(k => api(`/api/evals/${k}`)))
  route()
  connect()
}
start()
