// hptune dashboard: the login form keeps where to go next (?next=) and
// shows a refused token (?error=).
'use strict';
(function () {
  function start() {
    const params = new URLSearchParams(location.search);
    // A server's redirect to /login keeps the page's #fragment: go back there.
    const next = params.get('next') || (location.hash ? '/' + location.hash : null);
    // Only a path of this site: never another origin.
    if (next && next.startsWith('/') && !next.startsWith('//')) document.getElementById('next').value = next;
    if (params.has('failed') || params.has('error')) document.getElementById('login-error').hidden = false;
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
