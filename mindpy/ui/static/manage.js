'use strict'
// The control panel (mindpy.ui.agents_api): add agents from a profile file or a small form, stop them all, and on
// each card destroy the agent or edit its profile (saved, then the agent restarts with it and keeps its memory).
// Uses app.js's $ and esc; app.js calls window.onCardCreated for each card it makes. Everything else stays inside
// this file's own scope.

;(() => {
const manage = { catalogue: null }

async function manageCall (method, path, body) {
  const options = { method, headers: { 'Content-Type': 'application/json' } }
  if (body !== undefined) options.body = JSON.stringify(body)
  const response = await fetch(path, options)
  const data = await response.json().catch(() => ({}))
  if (!response.ok) throw new Error(data.detail || data.error || response.statusText)
  return data
}

function manageFlash (text, bad) {
  const flash = $('#manage-flash')
  flash.textContent = text
  flash.classList.toggle('error', !!bad)
}

function renderManage (c) {
  const files = c.profiles.map(p => `<option value="${esc(p.file)}">${esc(p.file)} (${esc(p.name)}${p.model ? `, ${esc(p.model)}` : ''})</option>`).join('')
  const bases = c.bases.map(b => `<option value="${esc(b)}"${b === 'survival' ? ' selected' : ''}>${esc(b)}</option>`).join('')
  const modes = Object.entries(c.modes).map(([m, on]) => `<label class="mode"><input type="checkbox" name="mode" value="${esc(m)}"${on ? ' checked' : ''}>${esc(m)}</label>`).join('')
  $('#manage').innerHTML = `
    <div class="panel" id="manage-panel">
      <div class="panel-head"><h2>Add agent</h2>
        <button id="stop-all" class="danger" title="every agent leaves the game, its memory saved">Stop all</button>
        <span id="manage-flash" class="flash"></span></div>
      <p class="muted" id="manage-why"></p>
      <form id="create-from-file" class="manage-row">
        <label>profile <select name="profile">${files || '<option value="">(no profile files)</option>'}</select></label>
        <label>as <input name="name" placeholder="its name" size="12" autocomplete="off"></label>
        <button>Create</button>
      </form>
      <form id="create-agent" class="manage-row">
        <label>name <input name="name" required placeholder="3-16 letters" size="12" autocomplete="off"></label>
        <label>model <input name="model" placeholder="gpt-4o-mini, replay:FILE, …" size="22" autocomplete="off"></label>
        <label>base <select name="base_profile">${bases}</select></label>
        <button>Create</button>
        <div class="manage-modes"><span class="label">modes</span>${modes}</div>
      </form>
    </div>
    <div class="panel" id="profile-editor" hidden>
      <div class="panel-head"><h2>Profile of <span id="profile-name"></span></h2><span id="profile-path" class="muted"></span></div>
      <textarea id="profile-text" spellcheck="false" rows="10"></textarea>
      <div id="profile-error" class="error"></div>
      <button id="profile-save">Save and restart</button> <button id="profile-cancel">Cancel</button>
    </div>`
  showWhy(c)
  $('#create-from-file').onsubmit = event => {
    event.preventDefault()
    const f = event.target.elements
    const body = { profile: f.profile.value }
    if (f.name.value.trim()) body.name = f.name.value.trim()
    createAgent(body, event.target)
  }
  $('#create-agent').onsubmit = event => {
    event.preventDefault()
    const f = event.target.elements
    const modes = {}
    for (const box of event.target.querySelectorAll('input[name="mode"]')) modes[box.value] = box.checked
    const body = { name: f.name.value.trim(), base_profile: f.base_profile.value, modes }
    if (f.model.value.trim()) body.model = f.model.value.trim()
    createAgent(body, event.target)
  }
  $('#stop-all').onclick = async () => {
    if (!confirm('Stop all agents? Each leaves the game, its memory saved.')) return
    try { manageFlash((await manageCall('POST', '/api/agents/stop_all', {})).message) } catch (err) { manageFlash(err.message, true) }
  }
  $('#profile-cancel').onclick = () => { $('#profile-editor').hidden = true }
  $('#profile-save').onclick = saveProfile
}

function showWhy (c) { // why agents cannot be created here now (the run may start after the page opened)
  $('#manage-why').textContent = c.can_create ? '' : c.why
  $('#manage-why').hidden = c.can_create
}

async function refreshWhy () {
  try { showWhy(await manageCall('GET', '/api/profiles')) } catch (err) { }
}

async function createAgent (body, form) {
  const button = form.querySelector('button')
  button.disabled = true
  manageFlash(`creating ${body.name || body.profile}…`)
  try {
    manageFlash((await manageCall('POST', '/api/agents', body)).message)
  } catch (err) {
    manageFlash(err.message, true)
  } finally {
    button.disabled = false
    refreshWhy()
  }
}

async function editProfile (name) {
  const cardFlash = document.querySelector(`.card[data-agent="${CSS.escape(name)}"] .flash`)
  try {
    const data = await manageCall('GET', `/api/agents/${encodeURIComponent(name)}/profile`)
    $('#profile-name').textContent = name
    $('#profile-path').textContent = data.path
    $('#profile-text').value = data.text
    $('#profile-text').dataset.format = data.format
    $('#profile-error').textContent = ''
    $('#profile-editor').hidden = false
    $('#profile-text').focus()
  } catch (err) {
    if (cardFlash) cardFlash.textContent = `profile: ${err.message}`
  }
}

async function saveProfile () {
  const name = $('#profile-name').textContent
  const text = $('#profile-text').value
  try {
    const data = await manageCall('PUT', `/api/agents/${encodeURIComponent(name)}/profile`, { text })
    $('#profile-editor').hidden = true
    manageFlash(data.message)
  } catch (err) {
    $('#profile-error').textContent = err.message // the text stays in the editor, to be fixed
  }
}

async function destroyAgent (name, flash) {
  if (!confirm(`Destroy ${name}? It leaves the game; its memory is saved.`)) return
  try { flash.textContent = (await manageCall('DELETE', `/api/agents/${encodeURIComponent(name)}`)).message } catch (err) { flash.textContent = `destroy: ${err.message}` }
}

async function showPictures (el, name) {
  const data = await manageCall('GET', `/api/agents/${encodeURIComponent(name)}/pictures`).catch(() => ({ pictures: [] }))
  const html = data.pictures.slice().reverse().map(p => `<a href="${esc(p.url)}" target="_blank" rel="noopener" title="${new Date(p.t * 1000).toLocaleTimeString()} at ${p.position.join(', ')}"><img src="${esc(p.url)}" alt="what ${esc(name)} saw"></a>`).join('')
  const box = el.querySelector('.pictures')
  if (box.dataset.html !== html) { box.innerHTML = html; box.dataset.html = html }
}

async function takePicture (el, name) {
  const flash = el.querySelector('.flash')
  flash.textContent = 'taking a picture…'
  try {
    await manageCall('POST', `/api/agents/${encodeURIComponent(name)}/picture`, {})
    flash.textContent = ''
    await showPictures(el, name)
  } catch (err) {
    flash.textContent = `picture: ${err.message}`
  }
}

window.onCardCreated = (el, name) => {
  if (!manage.catalogue || el.querySelector('.buttons .destroy')) return
  refreshWhy()
  const buttons = el.querySelector('.buttons')
  buttons.insertAdjacentHTML('beforeend', '<button class="picture" title="what it sees now (the last few are kept)">Picture</button><button class="profile" title="edit its profile (it restarts with it)">Profile</button><button class="destroy danger" title="it leaves the game, its memory saved">Destroy</button>')
  buttons.querySelector('.picture').onclick = () => takePicture(el, name)
  buttons.querySelector('.profile').onclick = () => editProfile(name)
  buttons.querySelector('.destroy').onclick = () => destroyAgent(name, el.querySelector('.flash'))
  el.insertAdjacentHTML('beforeend', '<div class="pictures"></div>')
  showPictures(el, name)
}

async function startManage () {
  const info = await manageCall('GET', '/api/info')
  if (!info.manage) return
  manage.catalogue = await manageCall('GET', '/api/profiles')
  renderManage(manage.catalogue)
  $('#manage').hidden = false
  for (const el of document.querySelectorAll('.card')) window.onCardCreated(el, el.dataset.agent)
}
startManage()
})()
