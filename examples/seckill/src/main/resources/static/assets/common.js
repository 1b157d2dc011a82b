// OnlyOnce flash-sale page: what both pages share. Server data only ever goes into the page through
// textContent (never innerHTML); the access token lives in sessionStorage, never in a cookie.
'use strict';

const OO = (() => {
  const PROBLEM = 'urn:onlyonce:problem:';
  const zh = (navigator.language || 'en').toLowerCase().startsWith('zh');

  const TEXT = {
    en: {
      skip: 'Skip to content', appTitle: 'OnlyOnce flash sale', logout: 'Log out',
      loginHeading: 'Log in', loginHint: 'Demo login: any user name, no password.',
      username: 'User name', login: 'Log in', loggingIn: 'Logging in…',
      badUsername: 'Use 1 to 32 letters, digits, ".", "_" or "-".',
      saleHeading: 'Flash sale', productsHeading: 'Products', ordersHeading: 'My orders',
      running: 'Running', notRunning: 'Not running', stockLeft: 'Stock left: {0} of {1}', soldOutBadge: 'Sold out',
      stock: 'In stock: {0}', buyNow: 'Buy now', ordered: 'Ordered', buy: 'Buy', submitting: 'Submitting…',
      regularPrice: 'Regular price', endsIn: 'Ends in {0}', saleEnded: 'The sale has ended', days: '{0} d',
      colOrder: 'Order', colWhat: 'Product', colAmount: 'Amount', colStatus: 'Status', colActions: 'Actions',
      createdAt: 'Placed at', noOrders: 'No orders yet.',
      pay: 'Simulate payment', cancel: 'Cancel', paying: 'Paying…', cancelling: 'Cancelling…',
      view: 'View order', backToSale: 'Back to the sale',
      statsHeading: 'Duplicates stopped, per layer', statsHint: 'This instance, since it started; refreshed every few seconds.',
      layerGateway: 'Gateway (request window)', layerBusiness: 'Business (keys, tokens)',
      layerData: 'Data (unique keys, state machines)', layerMessage: 'Message (idempotent consumers)',
      ordersTotal: 'Orders in the database', oversell: 'Oversell check', ok: 'OK', broken: 'FAILED',
      'status.UNPAID': 'Unpaid', 'status.PAID': 'Paid', 'status.CANCELLED': 'Cancelled',
      product: 'Product {0}', saleProduct: '{0} (flash sale {1})',
      orderPlaced: 'Order placed', orderTitle: 'Order {0}', queuedTitle: 'Queued',
      queued: 'Your purchase is queued. This page follows it until it becomes an order.',
      reservationFailed: 'Your purchase did not go through.', failedTitle: 'Not ordered',
      paid: 'Paid. Thank you!', paidAgain: 'This payment was already recorded: nothing changed.',
      cancelled: 'Order cancelled.', noOrderGiven: 'No order given.',
      existing: 'You already have this order: {0}.', existingSale: 'You already have an order in this sale: {0}.',
      alreadyInSale: 'You already have an order in this sale: see "My orders".',
      reservationLost: 'Your purchase was lost on the way. Please buy again.',
      stillProcessing: 'Your purchase is still being processed. Look at "My orders" in a moment.',
      soldOut: 'Sold out: nothing left to buy.', notActive: 'This flash sale is not running now.',
      window: 'Too fast: the same purchase was just sent. Wait a second, then try again.',
      rate: 'Too many requests. Please wait {0} s and try again.',
      tokenExpired: 'Your purchase ticket expired or is no longer valid. Click "Buy now" again.',
      purchaseLimit: 'You have reached the purchase limit for this item.',
      unpaidLimit: 'You have too many unpaid orders: pay or cancel one first.',
      notCancellable: 'A paid order cannot be cancelled.', orderCancelled: 'The order was cancelled before the payment.',
      notFound: 'Not found.', sessionExpired: 'Your session expired. Please log in again.',
      network: 'No answer from the service. Your purchase is kept: click again to retry it safely (it will not order twice).',
      storeDown: 'The service is busy. Please try again in a moment.', demoOnly: 'Available in demo mode only.',
      failed: 'Something went wrong (HTTP {0}).',
    },
    zh: {
      skip: '跳到主要内容', appTitle: 'OnlyOnce 秒杀', logout: '退出登录',
      loginHeading: '登录', loginHint: '演示登录：任意用户名，无需密码。',
      username: '用户名', login: '登录', loggingIn: '登录中...',
      badUsername: '请使用 1 到 32 个字母、数字、“.”、“_”或“-”。',
      saleHeading: '限时秒杀', productsHeading: '商品', ordersHeading: '我的订单',
      running: '进行中', notRunning: '未开始或已结束', stockLeft: '剩余库存：{0} / {1}', soldOutBadge: '已售罄',
      stock: '库存：{0}', buyNow: '立即抢购', ordered: '已下单', buy: '购买', submitting: '提交中...',
      regularPrice: '原价', endsIn: '距结束 {0}', saleEnded: '秒杀已结束', days: '{0} 天',
      colOrder: '订单号', colWhat: '商品', colAmount: '金额', colStatus: '状态', colActions: '操作',
      createdAt: '下单时间', noOrders: '暂无订单。',
      pay: '模拟支付', cancel: '取消订单', paying: '支付中...', cancelling: '取消中...',
      view: '查看订单', backToSale: '返回秒杀页',
      statsHeading: '各层拦截的重复请求', statsHint: '本实例自启动以来的计数，每隔几秒刷新。',
      layerGateway: '网关层（请求窗口）', layerBusiness: '业务层（幂等键、令牌）',
      layerData: '数据层（唯一约束、状态机）', layerMessage: '消息层（幂等消费）',
      ordersTotal: '数据库中的订单', oversell: '超卖检查', ok: '正常', broken: '异常',
      'status.UNPAID': '待支付', 'status.PAID': '已支付', 'status.CANCELLED': '已取消',
      product: '商品 {0}', saleProduct: '{0}（秒杀活动 {1}）',
      orderPlaced: '下单成功', orderTitle: '订单 {0}', queuedTitle: '排队中',
      queued: '您的抢购正在排队，本页会跟踪直到生成订单。',
      reservationFailed: '抢购未成功。', failedTitle: '未下单',
      paid: '支付成功，谢谢！', paidAgain: '该笔支付已记录过，未做任何改变。',
      cancelled: '订单已取消。', noOrderGiven: '未指定订单。',
      existing: '您已有该订单：{0}。', existingSale: '您在本次秒杀中已有订单：{0}。',
      alreadyInSale: '您在本次秒杀中已有订单，请在“我的订单”中查看。',
      reservationLost: '抢购请求在途中丢失，请重新抢购。',
      stillProcessing: '您的抢购仍在处理中，请稍后在“我的订单”中查看。',
      soldOut: '已售罄，没有库存了。', notActive: '该秒杀活动当前未进行。',
      window: '操作太快：同一请求刚刚已提交，请稍等一秒再试。',
      rate: '请求过于频繁，请 {0} 秒后再试。',
      tokenExpired: '抢购凭证已过期或失效，请重新点击“立即抢购”。',
      purchaseLimit: '已达到该商品的限购数量。',
      unpaidLimit: '未支付订单过多，请先支付或取消一个。',
      notCancellable: '已支付的订单不能取消。', orderCancelled: '订单在付款前已被取消。',
      notFound: '未找到。', sessionExpired: '登录已过期，请重新登录。',
      network: '服务无响应。您的购买请求已保留：再次点击可安全重试（不会重复下单）。',
      storeDown: '服务繁忙，请稍后再试。', demoOnly: '仅在演示模式下可用。',
      failed: '出错了（HTTP {0}）。',
    },
  };
  const lang = zh ? 'zh' : 'en';

  /** The text of {@code key} in the browser's language, {0}, {1}... filled in. */
  function t(key, ...args) {
    const text = TEXT[lang][key] ?? TEXT.en[key] ?? key;
    return text.replace(/\{(\d)\}/g, (_, i) => String(args[Number(i)] ?? ''));
  }

  function translate(root = document) {
    document.documentElement.lang = zh ? 'zh-CN' : 'en';
    document.title = t('appTitle');
    root.querySelectorAll('[data-i18n]').forEach(el => { el.textContent = t(el.dataset.i18n); });
  }

  // ---- session (sessionStorage: gone with the tab, never sent by the browser on its own)
  const session = {
    get() {
      try { return JSON.parse(sessionStorage.getItem('oo.session') || 'null'); } catch (e) { return null; }
    },
    set(value) { sessionStorage.setItem('oo.session', JSON.stringify(value)); },
    clear() { sessionStorage.removeItem('oo.session'); },
  };

  /**
   * One API call: {status, ok, data, type, headers}; status 0 when no answer came (network error,
   * timeout). {@code type} is the problem's type URN for an RFC 9457 answer, else ''.
   */
  async function call(method, path, { body, headers = {}, timeoutMs = 15000 } = {}) {
    const h = { Accept: 'application/json, application/problem+json', ...headers };
    const s = session.get();
    if (s) h.Authorization = 'Bearer ' + s.accessToken;
    if (body !== undefined) h['Content-Type'] = 'application/json';
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await fetch(path, {
        method, headers: h, body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal, credentials: 'omit', cache: 'no-store',
      });
      const text = await res.text();
      let data = null;
      try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
      const problem = (res.headers.get('Content-Type') || '').startsWith('application/problem+json');
      const type = problem && data && typeof data.type === 'string' ? data.type : '';
      if (res.status === 401 && s && !path.startsWith('/api/login')) {
        session.clear();
      }
      return { status: res.status, ok: res.ok, data, type, headers: res.headers };
    } catch (e) {
      return { status: 0, ok: false, data: null, type: '', headers: new Headers() };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The slug of a problem type of ours ({@code urn:onlyonce:problem:<slug>}), else ''. */
  function slug(answer) {
    return answer.type.startsWith(PROBLEM) ? answer.type.substring(PROBLEM.length) : '';
  }

  /** The message for a refused answer, chosen by its problem type (never by its English text). */
  function problemText(answer) {
    if (answer.status === 0) return t('network');
    const known = knownText(slug(answer), Number(answer.headers.get('Retry-After')) || 1);
    if (known) return known;
    if (answer.status >= 500) return t('network');
    if (answer.data && typeof answer.data.title === 'string' && answer.type) {
      return answer.data.title; // the service's own localised title
    }
    return t('failed', answer.status);
  }

  /** The message of a problem slug this page knows, else null. */
  function knownText(kind, retryAfter = 1) {
    switch (kind) {
      case 'sold-out': return t('soldOut');
      case 'activity-not-active': return t('notActive');
      case 'duplicate-request': return t('window');
      case 'too-many-requests':
      case 'token-rate-limited': return t('rate', retryAfter);
      case 'idempotency-token-expired':
      case 'idempotency-token-invalid':
      case 'idempotency-token-missing':
      case 'idempotency-token-mismatch': return t('tokenExpired');
      case 'purchase-limit': return t('purchaseLimit');
      case 'live-order-exists': return t('alreadyInSale');
      case 'reservation-lost': return t('reservationLost');
      case 'unpaid-order-limit': return t('unpaidLimit');
      case 'order-not-cancellable': return t('notCancellable');
      case 'order-cancelled': return t('orderCancelled');
      case 'idempotency-request-in-progress': return t('stillProcessing');
      case 'idempotency-store-unavailable': return t('storeDown');
      case 'unauthorized':
      case 'access-token-expired':
      case 'access-token-invalid': return t('sessionExpired');
      case 'order-not-found':
      case 'activity-not-found':
      case 'product-not-found': return t('notFound');
      default: return null;
    }
  }

  /** Shows {@code text} (plain text) in a message element, as an error or not. */
  function say(el, text, kind = 'error') {
    el.textContent = text;
    el.className = 'message' + (kind ? ' ' + kind : '');
  }

  /** Shows "you already have this order: X" with a link to its result page. */
  function sayExisting(el, orderNo, key = 'existing') {
    el.textContent = '';
    el.className = 'message ok';
    el.append(document.createTextNode(t(key, orderNo) + ' '));
    const link = document.createElement('a');
    link.href = orderPage(orderNo);
    link.textContent = t('view');
    link.className = 'existing-order';
    el.append(link);
  }

  function orderPage(orderNo) {
    return 'order.html?orderNo=' + encodeURIComponent(orderNo);
  }

  /** Disables a button and shows progress on it, or gives it back its label. */
  function busy(button, on, busyKey = 'submitting') {
    if (on) {
      button.dataset.label = button.dataset.label || button.textContent;
      button.disabled = true;
      button.setAttribute('aria-busy', 'true');
      button.textContent = t(busyKey);
    } else {
      // a sale's button stays disabled while the user holds that sale's order (main.js holdSales)
      button.disabled = button.dataset.held !== undefined;
      button.removeAttribute('aria-busy');
      if (button.dataset.label) button.textContent = button.dataset.label;
    }
  }

  function money(value) {
    return Number(value).toFixed(2);
  }

  function when(instant) {
    return instant ? new Date(instant).toLocaleString(zh ? 'zh-CN' : undefined) : '';
  }

  /**
   * Pays one's own order ({@code kind} 'pay': the demo endpoint, where the service signs the notice
   * and notifies itself) or cancels it ('cancel'), the button busy meanwhile; says how it went.
   */
  async function orderAction(button, orderNo, kind, message) {
    if (button.disabled) return;
    busy(button, true, kind === 'pay' ? 'paying' : 'cancelling');
    const path = kind === 'pay' ? '/api/demo/orders/' + encodeURIComponent(orderNo) + '/pay'
      : '/api/orders/' + encodeURIComponent(orderNo) + '/cancel';
    const answer = await call('POST', path);
    busy(button, false);
    if (answer.ok) {
      say(message, kind === 'pay' ? (answer.data.duplicate ? t('paidAgain') : t('paid')) : t('cancelled'), 'ok');
    } else {
      say(message, problemText(answer));
    }
  }

  /** Whether the service runs in demo mode (only then can the page simulate a payment). */
  async function demoMode() {
    const answer = await call('GET', '/api/demo');
    return answer.ok && answer.data && answer.data.demo === true;
  }

  return { t, translate, session, call, slug, problemText, knownText, say, sayExisting, orderPage, busy, money, when, orderAction, demoMode };
})();
