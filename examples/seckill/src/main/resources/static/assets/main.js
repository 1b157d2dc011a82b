// The sale page: log in, the flash sale with live stock, products, my orders, the per-layer panel.
// One purchase intent = one one-time token (flash sale) or one business id (regular order), kept in
// sessionStorage until the intent has its answer, so every retry of it (a click after a network
// error, after a reload) sends the same one and cannot make a second order.
'use strict';

(() => {
  const { t } = OO;
  const $ = id => document.getElementById(id);
  const names = new Map();       // productId -> name
  let demo = false;
  let leaving = false;            // navigating to a result page: keep the button disabled
  let timer = null;
  let countdown = null;

  OO.translate();

  // ---- purchase intents
  const intentKey = (kind, ...ids) => `oo.intent.${OO.session.get().userId}.${kind}.${ids.join('.')}`;
  const readIntent = key => { try { return JSON.parse(sessionStorage.getItem(key) || 'null'); } catch (e) { return null; } };
  const saveIntent = (key, value) => sessionStorage.setItem(key, JSON.stringify(value));
  const dropIntent = key => sessionStorage.removeItem(key);

  /** A business id made here, when the service's business-id service cannot be reached: same form, random suffix. */
  function localBusinessId(userId) {
    const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const random = crypto.getRandomValues(new Uint8Array(6));
    return `u${userId}_${Date.now()}_${Array.from(random, b => alnum[b % alnum.length]).join('')}`;
  }

  /**
   * A business id for a new purchase intent: from the business-id service (GET
   * /api/idempotent/generate, the same ids on every channel), else made here. Null when the session
   * has expired.
   */
  async function newBusinessId(userId) {
    const issued = await OO.call('GET', '/api/idempotent/generate?scope=order');
    if (issued.status === 401) return null;
    if (issued.ok && issued.data && typeof issued.data.businessId === 'string'
        && issued.data.businessId.startsWith(`u${userId}_`)) {
      return issued.data.businessId;
    }
    return localBusinessId(userId);
  }

  /** Sends a purchase, once more with the same key or token after no answer or a 5xx (at most twice more). */
  async function send(path, body, headers) {
    let answer;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0) await new Promise(r => setTimeout(r, 500 * attempt));
      answer = await OO.call('POST', path, { body, headers });
      if (answer.status !== 0 && answer.status < 500) break;
    }
    return answer;
  }

  /** A read of the shop; an expired session goes back to the login form. */
  async function read(path) {
    const answer = await OO.call('GET', path);
    if (answer.status === 401) showLogin(t('sessionExpired'));
    return answer;
  }

  /** After a token's duplicate-submission without its first answer: the live order of that sale, if it is there yet. */
  async function liveOrderOf(activityId) {
    for (let i = 0; i < 3; i++) {
      const answer = await read('/api/orders?limit=100');
      const order = answer.ok && Array.isArray(answer.data)
        ? answer.data.find(o => o.activityId === activityId && o.status !== 'CANCELLED') : null;
      if (order) return order.orderNo;
      await new Promise(r => setTimeout(r, 700));
    }
    return null;
  }

  /** Goes to the order's result page (Post/Redirect/Get: the page there only reads). */
  function toResult(url) {
    leaving = true;
    location.assign(url);
  }

  /**
   * What an order answer means for the intent: success goes to the result page; an order that
   * exists already is shown with its link; a definite refusal ends the intent; anything that may
   * not have reached the service keeps it for the retry.
   */
  async function handle(answer, key, message, activityId) {
    if (answer.status === 201 && answer.data && answer.data.orderNo) {
      dropIntent(key);
      toResult(OO.orderPage(answer.data.orderNo) + '&placed=1');
      return;
    }
    if (answer.status === 202 && answer.data && answer.data.reservationId) {
      dropIntent(key);
      toResult('order.html?reservation=' + encodeURIComponent(answer.data.reservationId));
      return;
    }
    const kind = OO.slug(answer);
    const data = answer.data || {};
    if (kind === 'duplicate-submission' || kind === 'live-order-exists' || kind === 'order-exists') {
      const first = data.firstResult && typeof data.firstResult === 'object' ? data.firstResult : {};
      let orderNo = data.orderNo || first.orderNo;
      if (!orderNo && first.reservationId) {
        // the first answer was the fast path's 202: follow that reservation
        dropIntent(key);
        toResult('order.html?reservation=' + encodeURIComponent(first.reservationId));
        return;
      }
      if (!orderNo && activityId !== undefined) orderNo = await liveOrderOf(activityId);
      dropIntent(key);
      if (orderNo) {
        OO.sayExisting(message, orderNo, kind === 'live-order-exists' ? 'existingSale' : 'existing');
        refreshOrders();
        return;
      }
      // the token was spent, and no order came of it: it expired (or its request failed after
      // taking it); the next click fetches a new one, and the database still allows one live order
      OO.say(message, t('tokenExpired'));
      return;
    }
    if (answer.status === 401) {
      showLogin(t('sessionExpired'));
      return;
    }
    // keep the intent when the request may have run (no answer, 5xx) or was held back before running
    const keep = answer.status === 0 || answer.status >= 500 || answer.status === 429
      || kind === 'idempotency-request-in-progress';
    if (!keep) dropIntent(key);
    OO.say(message, OO.problemText(answer));
  }

  async function buyFlashSale(button, activityId, productId) {
    if (button.disabled) return;
    if (!OO.session.get()) return showLogin(t('sessionExpired'));
    const message = $(`msg-${activityId}-${productId}`);
    OO.busy(button, true);
    OO.say(message, '', '');
    try {
      const key = intentKey('seckill', activityId, productId);
      let intent = readIntent(key);
      if (!intent) {
        const issued = await OO.call('POST', `/api/seckill/activities/${activityId}/tokens`);
        if (!issued.ok) {
          if (issued.status === 401) showLogin(t('sessionExpired'));
          else OO.say(message, OO.problemText(issued));
          return;
        }
        intent = { token: issued.data.token };
        saveIntent(key, intent);
      }
      const answer = await send(`/api/seckill/activities/${activityId}/orders`, { productId, quantity: 1 },
        { 'Idempotency-Token': intent.token });
      await handle(answer, key, message, activityId);
    } finally {
      if (!leaving) OO.busy(button, false);
      refreshActivities();
    }
  }

  async function buyProduct(button, productId) {
    if (button.disabled) return;
    if (!OO.session.get()) return showLogin(t('sessionExpired'));
    const message = $(`msg-p-${productId}`);
    OO.busy(button, true);
    OO.say(message, '', '');
    try {
      const key = intentKey('order', productId);
      let intent = readIntent(key);
      if (!intent) {
        const id = await newBusinessId(OO.session.get().userId);
        if (!id) {
          showLogin(t('sessionExpired'));
          return;
        }
        intent = { businessId: id };
        saveIntent(key, intent);
      }
      const answer = await send('/api/orders', { productId, quantity: 1 }, { 'Idempotency-Key': intent.businessId });
      await handle(answer, key, message);
    } finally {
      if (!leaving) OO.busy(button, false);
      refreshProducts();
    }
  }

  // ---- rendering (textContent only)
  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    Object.entries(props).forEach(([k, v]) => {
      if (k === 'text') node.textContent = v;
      else if (k === 'dataset') Object.assign(node.dataset, v);
      else node.setAttribute(k, v);
    });
    children.forEach(c => node.append(c));
    return node;
  }

  function card(id, title, price, stockText, badge, button, messageId, regularPrice, endsAt) {
    const header = el('h3', { id: id + '-title', text: title });
    const line = el('div', { class: 'price', id: id + '-price', text: '¥ ' + price });
    if (regularPrice !== undefined && regularPrice !== price) {
      line.append(el('span', { class: 'regular', id: id + '-regular' }, t('regularPrice') + ' ', el('s', { text: '¥ ' + regularPrice })));
    }
    const stock = el('div', { class: 'stock', id: id + '-stock', 'aria-live': 'polite', text: stockText });
    const message = el('p', { class: 'message', id: messageId, role: 'status', 'aria-live': 'polite' });
    button.setAttribute('aria-describedby', id + '-title ' + messageId);
    const box = el('article', { class: 'card', id, 'aria-labelledby': id + '-title' }, header, line, stock);
    if (endsAt !== undefined) {
      const ends = el('div', { class: 'ends', id: id + '-ends', dataset: { endsAt: String(endsAt) } });
      box.append(ends);
      tick(ends);
    }
    if (badge) box.insertBefore(badge, line);
    box.append(button, message);
    return box;
  }

  /** The time left in a sale, as "1 d 02:03:04" or "02:03:04". */
  function left(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    const clock = [Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60].map(n => String(n).padStart(2, '0')).join(':');
    const days = Math.floor(s / 86400);
    return days > 0 ? t('days', days) + ' ' + clock : clock;
  }

  /** Updates one countdown; at the end the sale's button is disabled and says so. */
  function tick(ends) {
    const ms = Number(ends.dataset.endsAt) - Date.now();
    if (ms > 0) {
      ends.textContent = t('endsIn', left(ms));
      return;
    }
    ends.textContent = t('saleEnded');
    const button = ends.parentElement && ends.parentElement.querySelector('button');
    if (button && button.getAttribute('aria-busy') !== 'true') {
      button.disabled = true;
      button.textContent = t('saleEnded');
    }
  }

  async function refreshActivities() {
    const answer = await read('/api/seckill/activities');
    if (!answer.ok || !Array.isArray(answer.data)) return;
    const box = $('activities');
    for (const activity of answer.data.filter(a => a.running)) {
      for (const p of activity.products) {
        names.set(p.productId, p.name);
        const id = `sale-${activity.id}-${p.productId}`;
        const stockText = p.stock > 0 ? t('stockLeft', p.stock, p.initialStock) : t('soldOutBadge');
        // the end as this device's clock reads it: the service says how long is left, on its clock
        const endsAt = Date.now() + Number(activity.millisLeft || 0);
        const existing = $(id);
        if (existing) {
          $(id + '-stock').textContent = stockText;
          const ends = $(id + '-ends');
          if (ends) {
            ends.dataset.endsAt = String(endsAt);
            tick(ends);
          }
          continue;
        }
        const button = el('button', { type: 'button', id: `buy-${activity.id}-${p.productId}`, text: t('buyNow'),
          dataset: { sale: String(activity.id), product: String(p.productId) } });
        button.addEventListener('click', () => buyFlashSale(button, activity.id, p.productId));
        const badge = el('span', { class: 'badge live', text: t('running') + ' · ' + activity.name });
        box.append(card(id, p.name, OO.money(p.price), stockText, badge, button, `msg-${activity.id}-${p.productId}`,
          p.regularPrice === undefined || p.regularPrice === null ? undefined : OO.money(p.regularPrice), endsAt));
      }
    }
  }

  async function refreshProducts() {
    const answer = await read('/api/products');
    if (!answer.ok || !Array.isArray(answer.data)) return;
    const box = $('products');
    for (const p of answer.data) {
      names.set(p.id, p.name);
      const id = `product-${p.id}`;
      const stockText = p.stock > 0 ? t('stock', p.stock) : t('soldOutBadge');
      if ($(id)) {
        $(id + '-stock').textContent = stockText;
        continue;
      }
      const button = el('button', { type: 'button', class: 'secondary', id: `order-${p.id}`, text: t('buy') });
      button.addEventListener('click', () => buyProduct(button, p.id));
      box.append(card(id, p.name, OO.money(p.price), stockText, null, button, `msg-p-${p.id}`));
    }
  }

  async function orderAction(button, orderNo, kind) {
    await OO.orderAction(button, orderNo, kind, $('orders-message'));
    refreshOrders();
  }

  async function refreshOrders() {
    const answer = await read('/api/orders?limit=20');
    if (!answer.ok || !Array.isArray(answer.data)) return;
    const body = $('orders').tBodies[0];
    const rows = answer.data.map(o => {
      const link = el('a', { href: OO.orderPage(o.orderNo), text: o.orderNo });
      const name = names.get(o.productId) || t('product', o.productId);
      const actions = el('div', { class: 'actions' });
      if (o.status === 'UNPAID') {
        if (demo) {
          const pay = el('button', { type: 'button', class: 'small', id: `pay-${o.orderNo}`, text: t('pay') });
          pay.addEventListener('click', () => orderAction(pay, o.orderNo, 'pay'));
          actions.append(pay);
        }
        const cancel = el('button', { type: 'button', class: 'small secondary', id: `cancel-${o.orderNo}`, text: t('cancel') });
        cancel.addEventListener('click', () => orderAction(cancel, o.orderNo, 'cancel'));
        actions.append(cancel);
      }
      return el('tr', { dataset: { orderNo: o.orderNo } }, el('td', {}, link), el('td', { text: name }),
        el('td', { text: OO.money(o.amount) }), el('td', { class: 'status', text: t('status.' + o.status) }), el('td', {}, actions));
    });
    body.replaceChildren(...rows);
    $('no-orders').hidden = rows.length > 0;
    holdSales(answer.data);
  }

  /**
   * A sale's button while the user holds its order (one live order per user, sale and product, until
   * cancelled): disabled and saying so, with a link to the order, so no click spends a token on a
   * purchase the service must refuse; given back once that order is cancelled.
   */
  function holdSales(orders) {
    document.querySelectorAll('button[data-sale]').forEach(button => {
      // a button in flight shows its label again when the answer is in (OO.busy): set that label
      const busy = button.getAttribute('aria-busy') === 'true';
      const show = label => {
        if (busy) button.dataset.label = label;
        else button.textContent = label;
      };
      const activityId = Number(button.dataset.sale);
      const productId = Number(button.dataset.product);
      const held = orders.find(o => o.activityId === activityId && o.productId === productId && o.status !== 'CANCELLED');
      const message = $(`msg-${activityId}-${productId}`);
      if (held) {
        dropIntent(intentKey('seckill', activityId, productId));
        button.dataset.held = held.orderNo;
        if (!busy) button.disabled = true;
        show(t('ordered'));
        if (message && !message.textContent) OO.sayExisting(message, held.orderNo, 'existingSale');
      } else if (button.dataset.held) {
        delete button.dataset.held;
        if (!busy) button.disabled = false;
        show(t('buyNow'));
        if (message) OO.say(message, '', '');
      }
    });
  }

  async function refreshStats() {
    const answer = await read('/api/stats');
    if (!answer.ok || !answer.data) return;
    const d = answer.data.duplicatesStopped || {};
    $('stat-gateway').textContent = String(d.gateway ?? 0);
    $('stat-business').textContent = String(d.business ?? 0);
    $('stat-data').textContent = String(d.data ?? 0);
    $('stat-message').textContent = String(d.message ?? 0);
    $('stat-orders').textContent = String((answer.data.orders || {}).total ?? 0);
    $('stat-oversell').textContent = answer.data.oversell && answer.data.oversell.ok ? t('ok') : t('broken');
  }

  // ---- login / logout
  function showLogin(text) {
    OO.session.clear();
    clearInterval(timer);
    clearInterval(countdown);
    $('shop').hidden = true;
    $('who').hidden = true;
    $('login-section').hidden = false;
    OO.say($('login-message'), text || '', text ? 'error' : '');
    $('username').focus();
  }

  async function showShop(focus) {
    const s = OO.session.get();
    $('login-section').hidden = true;
    $('who').hidden = false;
    $('user-name').textContent = s.username;
    $('shop').hidden = false;
    demo = await OO.demoMode();
    await Promise.all([refreshActivities(), refreshProducts()]);
    await Promise.all([refreshOrders(), refreshStats()]);
    if (focus) $('sale-heading').focus();
    clearInterval(timer);
    clearInterval(countdown);
    timer = setInterval(() => {
      if (document.hidden || !OO.session.get()) return;
      refreshActivities();
      refreshStats();
    }, 3000);
    countdown = setInterval(() => document.querySelectorAll('.ends').forEach(tick), 1000);
  }

  $('login-form').addEventListener('submit', async event => {
    event.preventDefault();
    const button = $('login-button');
    if (button.disabled) return;
    const name = $('username').value.trim();
    if (!/^[A-Za-z0-9._-]{1,32}$/.test(name)) {
      OO.say($('login-message'), t('badUsername'));
      $('username').setAttribute('aria-invalid', 'true');
      $('username').focus();
      return;
    }
    $('username').removeAttribute('aria-invalid');
    OO.busy(button, true, 'loggingIn');
    const answer = await OO.call('POST', '/api/login', { body: { username: name } });
    OO.busy(button, false);
    if (!answer.ok) {
      OO.say($('login-message'), OO.problemText(answer));
      return;
    }
    OO.session.set({ accessToken: answer.data.accessToken, userId: answer.data.userId, username: answer.data.username });
    OO.say($('login-message'), '', '');
    showShop(true);
  });

  $('logout-button').addEventListener('click', () => showLogin());

  // Back to this page from a result page: the browser may restore it as it was left (a button
  // still disabled); give every button back, nothing is sent again.
  window.addEventListener('pageshow', event => {
    if (event.persisted) {
      leaving = false;
      document.querySelectorAll('button[aria-busy="true"]').forEach(b => OO.busy(b, false));
      if (OO.session.get()) {
        refreshOrders();
        refreshStats();
      }
    }
  });

  if (OO.session.get()) showShop(false); else showLogin();
})();
