// skillport dashboard: small enhancements only. Every page works without this script.

document.addEventListener("DOMContentLoaded", () => {
  // Copy buttons: data-copy names the element whose text is copied; the result is announced.
  // They come hidden, with a hint to copy by hand in their place: they work by script only.
  for (const hint of document.querySelectorAll("[data-copy-hint]")) hint.hidden = true;
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.hidden = false;
    button.addEventListener("click", async () => {
      const source = document.getElementById(button.getAttribute("data-copy"));
      const status = document.querySelector("[data-copy-status]");
      if (!source) return;
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = "Copied";
        if (status) status.textContent = "The key is on your clipboard.";
      } catch {
        // Clipboard refused (e.g. not a secure context): select the text for a manual copy.
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (status) status.textContent = "Press Ctrl+C (or ⌘C) to copy the selected key.";
      }
    });
  }

  // A form that changes something is sent once: on a slow link a second click on "Create
  // key" made a second key, whose secret nobody saw. Back to a page kept in the browser's
  // cache (pageshow, persisted) makes its forms usable again.
  const postForms = document.querySelectorAll('form[method="post"]');
  for (const form of postForms) {
    form.addEventListener("submit", (event) => {
      if (form.hasAttribute("data-sent")) {
        event.preventDefault();
        return;
      }
      form.setAttribute("data-sent", "");
      form.setAttribute("aria-busy", "true");
    });
  }
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    for (const form of postForms) {
      form.removeAttribute("data-sent");
      form.removeAttribute("aria-busy");
    }
  });

  // A form posted after the session ended is not read (signed out in another tab, a
  // restart): what was typed is kept in this tab (sessionStorage) as it is sent, and put
  // back when signing in again leads to the same form. Never a secret: no hidden or password
  // field (the CSRF token), no value holding an API key (pasted into the search box).
  const DRAFT = "skillport-draft";
  const SECRET = /sk_(?:live|test|dev)_/i;
  for (const form of postForms) {
    if (form.hasAttribute("data-no-draft")) continue;
    form.addEventListener("submit", () => {
      const fields = [];
      for (const field of form.elements) {
        if (!field.name || field.type === "hidden" || field.type === "password") continue;
        if ((field.type === "radio" || field.type === "checkbox") && !field.checked) continue;
        if (typeof field.value !== "string" || SECRET.test(field.value)) continue;
        fields.push([field.name, field.type, field.value]);
      }
      const draft = { page: location.pathname, action: form.getAttribute("action"), fields };
      try {
        sessionStorage.setItem(DRAFT, JSON.stringify(draft));
      } catch {
        // Storage refused (private mode, full): the form is sent all the same.
      }
    });
  }
  // Kept across the "session ended" page, which marks it as refused for that reason, and the
  // sign-in; any other page spends it. Only a draft so marked is put back: every form keeps
  // one as it is sent, and a form answered on its own address (a search led back to the
  // list, an edit refused for a field) is no form whose session ended.
  const readDraft = () => {
    try {
      return JSON.parse(sessionStorage.getItem(DRAFT) ?? "null");
    } catch {
      return null;
    }
  };
  if (document.querySelector("[data-keep-draft]")) {
    const draft = readDraft();
    try {
      if (draft) sessionStorage.setItem(DRAFT, JSON.stringify({ ...draft, sessionEnded: true }));
    } catch {
      // Storage refused: nothing to put back after signing in.
    }
  } else if (!document.querySelector('form[action="/dashboard/sign-in"]')) {
    const draft = readDraft();
    try {
      sessionStorage.removeItem(DRAFT);
    } catch {
      // Storage refused: there was no draft either.
    }
    const form =
      draft?.sessionEnded === true &&
      draft.page === location.pathname &&
      [...postForms].find((candidate) => candidate.getAttribute("action") === draft.action);
    if (form) {
      for (const [name, type, value] of draft.fields) {
        for (const field of form.querySelectorAll(`[name="${CSS.escape(name)}"]`)) {
          if (type === "radio" || type === "checkbox") field.checked = field.value === value;
          else if (field.type === type) field.value = value;
        }
      }
      const note = document.createElement("p");
      note.className = "alert";
      note.setAttribute("role", "status");
      note.setAttribute("data-draft-restored", "");
      note.textContent =
        "Your session had ended: this form is filled in with what you typed. Check it and send it again.";
      form.before(note);
    }
  }

  // The enterprise limits only matter for the enterprise plan: hide them otherwise.
  const plan = document.querySelector("[data-plan-select]");
  const limits = document.querySelector("[data-enterprise-limits]");
  if (plan && limits) {
    const sync = () => {
      limits.hidden = plan.value !== "enterprise";
    };
    plan.addEventListener("change", sync);
    sync();
  }

  // Selects marked data-autosubmit apply a choice made with the pointer at once. Not one
  // made with the keyboard: arrow keys on a closed select change it a step at a time, and
  // a page load at each step loses focus (WCAG 3.2.2); Enter, or the form's button, applies it.
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    let byKeyboard = false;
    select.addEventListener("pointerdown", () => {
      byKeyboard = false;
    });
    select.addEventListener("keydown", (event) => {
      byKeyboard = true;
      if (event.key === "Enter") {
        event.preventDefault();
        select.form?.requestSubmit();
      }
    });
    select.addEventListener("change", () => {
      if (!byKeyboard) select.form?.requestSubmit();
    });
  }

  // Times are rendered in UTC on the server; show them in the reader's zone, named (the
  // charts and the expiry hints beside them say UTC: "Expires Dec 3, 3:59 PM" read as the
  // afternoon of a key that ends at 23:59:59 UTC), UTC on hover. In tables, a compact form
  // (no year when it is this year) keeps the columns narrow.
  const full = new Intl.DateTimeFormat(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });
  const short = new Intl.DateTimeFormat(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  });
  const thisYear = new Date().getFullYear();
  for (const time of document.querySelectorAll("time[datetime]")) {
    const date = new Date(time.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    const compact = time.closest("table") && date.getFullYear() === thisYear;
    time.textContent = (compact ? short : full).format(date);
  }
});
