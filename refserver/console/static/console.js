// Keeps the sandbox console's pages current without a reload.
//
// Every element with a data-live attribute is refreshed from that URL
// every data-interval milliseconds (default 2000) while the tab is
// visible. The URL answers with an HTML fragment that the server renders
// from the same html/template as the page, so all escaping happens in one
// place, on the server. A 401 means the session ended: go to the login
// form. Any other failure marks the element stale until the next success.
(function () {
  'use strict';

  function watch(el) {
    var url = el.getAttribute('data-live');
    var every = parseInt(el.getAttribute('data-interval'), 10) || 2000;
    var busy = false;
    var last = null;

    function tick() {
      if (busy || document.hidden) {
        return;
      }
      busy = true;
      fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'text/html' } })
        .then(function (resp) {
          if (resp.status === 401) {
            window.location.assign('/console/login');
            return null;
          }
          if (!resp.ok) {
            throw new Error('HTTP ' + resp.status);
          }
          return resp.text();
        })
        .then(function (html) {
          if (html === null) {
            return;
          }
          if (html !== last) {
            el.innerHTML = html;
            last = html;
          }
          el.removeAttribute('data-stale');
          el.setAttribute('data-refreshed', String(Date.now()));
        })
        .catch(function () {
          el.setAttribute('data-stale', 'true');
        })
        .finally(function () {
          busy = false;
        });
    }

    window.setInterval(tick, every);
    document.addEventListener('visibilitychange', tick);
  }

  document.querySelectorAll('[data-live]').forEach(watch);
})();
