'use strict'
// The runs page: the episodes of every evaluation the dashboard shows, filtered; full-text search in their
// transcripts; an episode's model calls, each prompt shown when its line is opened (mindpy/ui/runs_api.py).

const $ = sel => document.querySelector(sel)
const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]))
const runs = { episodes: [], facets: null }
window.runs = runs // for the tests and people poking around

async function api (path) {
  const response = await fetch(path)
  const data = await response.json().catch(() => ({}))
  if (!response.ok) throw new Error(data.detail || data.error || response.statusText)
  return data
}

function showError (error) {
  const el = $('#runs-error')
  el.hidden = !error
  el.textContent = error ? String(error.message || error) : ''
}

function notes (list) {
  return (list || []).map(n => `<div class="note-line">⚠ ${esc(n)}</div>`).join('')
}

// the query's terms marked in a text (already escaped)
function marked (text, query) {
  let out = esc(text)
  for (const term of terms(query)) {
    const pattern = new RegExp(esc(term).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi')
    out = out.replace(pattern, m => `<mark>${m}</mark>`)
  }
  return out
}

function terms (query) {
  const found = []
  String(query || '').replace(/"([^"]*)"|(\S+)/g, (_, phrase, word) => { if (phrase || word) found.push(phrase || word) })
  return found
}

// ---- the filters and the episodes' table ---------------------------------------------------------------------
function fillChoices (facets) {
  if (runs.facets) return
  runs.facets = facets
  const form = $('#filters')
  const add = (select, values) => { for (const v of values) select.insertAdjacentHTML('beforeend', `<option>${esc(v)}</option>`) }
  add(form.family, facets.families)
  add(form.agents, facets.agents)
  add(form.end_reason, facets.end_reasons)
  $('#models').innerHTML = facets.models.map(m => `<option value="${esc(m)}">`).join('')
}

async function listEpisodes () {
  const params = new URLSearchParams()
  for (const [key, value] of new FormData($('#filters'))) if (String(value).trim()) params.set(key, value)
  try {
    const data = await api(`/api/runs/episodes?${params}`)
    showError(null)
    fillChoices(data.facets)
    runs.episodes = data.episodes
    $('#runs-notes').innerHTML = notes(data.notes)
    $('#runs-count').textContent = `${data.total} episodes`
    $('#listing-head').textContent = params.toString() ? `Episodes: ${data.episodes.length} of ${data.total} match` : `Episodes (${data.total})`
    $('#episodes tbody').innerHTML = data.episodes.map(row).join('') ||
      '<tr><td colspan="9" class="empty">No episode matches.</td></tr>'
  } catch (error) { showError(error) }
}

// an episode as a line names it: its task (the whole label, with the task file, on hover)
const named = e => `<span title="${esc(e.label)}">${esc(e.task_id || e.label)}${e.trial > 1 ? ` (trial ${e.trial})` : ''}</span>`

function row (e) {
  const score = e.score === null ? '' : Number(e.score).toFixed(2)
  return `<tr class="episode" data-id="${esc(e.id)}">
    <td title="${esc(e.run_dir)}">${esc(e.run_dir.split('/').pop())}</td><td>${named(e)}</td><td>${esc(e.family)}</td>
    <td>${esc(e.agent_count ?? '')}</td><td>${score}</td><td class="end-${esc(e.end_reason)}">${esc(e.end_reason)}</td>
    <td class="models">${esc(e.models.join(', '))}</td><td>${e.calls}</td><td class="notes">${notes(e.notes)}</td></tr>`
}

// ---- full-text search ----------------------------------------------------------------------------------------
async function search () {
  const query = $('#q').value.trim()
  $('#results').hidden = !query
  if (!query) return
  try {
    const data = await api(`/api/runs/search?q=${encodeURIComponent(query)}`)
    showError(null)
    const found = data.results
    $('#results-head').textContent = found.length ? `“${query}”: found in ${found.length} episode${found.length === 1 ? '' : 's'}` : `“${query}”: found nowhere`
    $('#results-list').innerHTML = found.map(r => `<div class="result" data-id="${esc(r.episode.id)}">
      <h3>${named(r.episode)} <span class="muted">${esc(r.episode.run_dir.split('/').pop())} · ${esc(r.episode.family)} · ${esc(r.episode.end_reason)} · ${r.count} hit${r.count === 1 ? '' : 's'}</span></h3>
      ${r.hits.map(h => `<div class="hit"><span class="kind">${esc(h.agent)} ${esc(h.kind)}</span>${marked(h.text, query)}</div>`).join('')}
    </div>`).join('')
  } catch (error) { showError(error) }
}

// ---- one episode's model calls -------------------------------------------------------------------------------
async function showEpisode (id) {
  $('#transcript').hidden = false
  for (const part of ['#listing', '#results', '#filters', '#search']) $(part).hidden = true
  $('#transcript-head').innerHTML = '<p class="muted">reading…</p>'
  $('#calls').innerHTML = ''
  try {
    const data = await api(`/api/runs/episode/${encodeURIComponent(id)}/calls`)
    showError(null)
    const e = data.episode
    $('#transcript-head').innerHTML = `<h2>${named(e)}</h2>
      <p class="muted">${esc(e.folder)}<br>${esc(e.family)}, ${esc(e.agent_count ?? '?')} agents, score ${esc(e.score ?? '-')}, ${esc(e.end_reason)}${e.duration_s ? `, ${Math.round(e.duration_s)} s` : ''}; ${data.calls.length} model calls, ${e.tokens} tokens; ${esc(e.models.join(', '))}</p>
      ${notes([...e.notes, ...data.notes])}`
    runs.calls = data.calls
    $('#calls').innerHTML = data.calls.map((c, i) => `<div class="call${c.command_ok ? '' : ' failed'}" data-call="${i}">
      <div class="call-head"><b>${esc(c.agent)}</b> #${c.number} · ${esc(c.kind)} · ${esc(c.model)} · ${c.prompt_tokens} + ${c.completion_tokens} tokens${c.command_ok ? '' : ' · command failed'}</div>
      <details class="prompt"><summary>prompt (${c.messages.length + 1} messages)</summary><div class="prompt-body"></div></details>
      <pre class="reply">${esc(c.reply)}</pre>
      ${c.command ? `<pre class="output">${esc(c.output ?? '(no output found)')}</pre>` : ''}
      ${c.picture ? `<img class="picture" alt="what ${esc(c.agent)} saw" src="/api/runs/episode/${encodeURIComponent(id)}/pictures/${encodeURIComponent(c.agent)}/${encodeURIComponent(c.picture)}">` : ''}
    </div>`).join('') || '<p class="empty">No model calls were logged for this episode.</p>'
  } catch (error) { showError(error) }
}

// a prompt is put on the page only when its line is opened: an episode's prompts can be megabytes
$('#calls').addEventListener('toggle', event => {
  const details = event.target
  if (!details.open || !details.classList.contains('prompt')) return
  const body = details.querySelector('.prompt-body')
  if (body.childElementCount) return
  const call = runs.calls[Number(details.closest('.call').dataset.call)]
  body.innerHTML = [{ role: 'system', content: call.system }, ...call.messages].map(m =>
    `<div class="prompt-message"><div class="role">${esc(m.role)}</div><pre>${esc(m.content)}</pre></div>`).join('')
}, true)

function showList () {
  $('#transcript').hidden = true
  for (const part of ['#listing', '#filters', '#search']) $(part).hidden = false
  $('#results').hidden = !$('#q').value.trim()
}

function route () {
  const match = location.hash.match(/^#episode=([0-9a-f]+)$/)
  if (match) showEpisode(match[1])
  else showList()
}

// ---- wiring ------------------------------------------------------------------------------------------------
$('#filters').addEventListener('submit', event => { event.preventDefault(); listEpisodes() })
$('#filters').addEventListener('reset', () => setTimeout(listEpisodes))
$('#search').addEventListener('submit', event => { event.preventDefault(); search() })
$('#episodes').addEventListener('click', event => {
  const tr = event.target.closest('tr.episode')
  if (tr) location.hash = `episode=${tr.dataset.id}`
})
$('#results-list').addEventListener('click', event => {
  const result = event.target.closest('.result')
  if (result) location.hash = `episode=${result.dataset.id}`
})
$('#transcript-back').addEventListener('click', event => { event.preventDefault(); history.pushState(null, '', location.pathname); showList() })
window.addEventListener('hashchange', route)
listEpisodes()
route()
