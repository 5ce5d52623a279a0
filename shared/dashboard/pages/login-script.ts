// The sign-in page's script, served as /assets/login.js: it signs in with the link
// `clawfleet dashboard` prints (`/login#code=…`). The code rides in the URL's fragment, which a
// browser never sends to a server, so it lands in no request log; the script takes it off the
// address bar and out of the history before anything else, then posts it with the page's own
// form, as a typed token is posted. A refused code comes back as the sign-in page saying so,
// without the fragment, so nothing submits twice. A link opened over this very page changes
// only the fragment (no new load), hence the hashchange listener. Plain ES2020, no dependencies.
export const LOGIN_JS = `(() => {
  const signInWithLink = () => {
    const m = /^#code=(\\d{10,16}\\.[0-9a-f]{64})$/.exec(location.hash);
    if (!m) return;
    history.replaceState(null, '', location.pathname + location.search);
    const form = document.querySelector('form.login');
    const code = document.getElementById('code');
    if (!form || !code) return;
    code.value = m[1];
    form.submit();
  };
  addEventListener('hashchange', signInWithLink);
  signInWithLink();
})();
`;
