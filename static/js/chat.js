/** The table chat: messages go out over the table's WebSocket; every message is shown as text, never HTML.
 * The chat is a drawer behind the tools' Chat button, which counts the messages come meanwhile and opens it over
 * the page; Close or Escape folds it back. */

const KEEP_MESSAGES = 100;

/** The chat of the table page's `app`: `send(message)` sends over the table's socket (false when it is not open),
 * `me` is the player's display name. */
export function setupChat(app, { send, me }) {
  const $ = (selector) => app.querySelector(selector);
  const [form, input, log, error] = [$("[data-chat-form]"), $("#chat-text"), $("[data-chat-log]"), $("[data-chat-error]")];
  const [panel, toggle, close, unread] = [$("[data-chat]"), $('[data-tool="chat"]'), $("[data-chat-close]"), $("[data-chat-unread]")];
  let unseen = 0;
  const isOpen = () => toggle.getAttribute("aria-expanded") === "true";

  function setOpen(open) {
    toggle.setAttribute("aria-expanded", String(open));
    panel.toggleAttribute("data-open", open);
    if (open) {
      unseen = 0;
      unread.hidden = true;
      input.focus();
    } else {
      toggle.focus();
    }
  }

  toggle.addEventListener("click", () => setOpen(!isOpen()));
  close.addEventListener("click", () => setOpen(false));
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && isOpen()) {
      event.preventDefault();
      setOpen(false);
    }
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (!send({ type: "chat", text })) {
      error.textContent = gettext("Not connected: the message was not sent.");
      return;
    }
    error.textContent = "";
    input.value = "";
  });

  return {
    receive({ user, text }) {
      const item = document.createElement("li");
      item.className = user === me ? "chat-message chat-message--mine" : "chat-message";
      const who = document.createElement("span");
      who.className = "chat-user";
      who.textContent = user;
      const body = document.createElement("span");
      body.className = "chat-text";
      body.textContent = text;
      item.append(who, body);
      log.append(item);
      while (log.childElementCount > KEEP_MESSAGES) log.firstElementChild.remove();
      log.scrollTop = log.scrollHeight;
      if (!isOpen()) {
        unseen += 1;
        unread.textContent = unseen > 9 ? "9+" : String(unseen);
        unread.hidden = false;
      }
    },
    refuse(message) {
      error.textContent = message.charAt(0).toUpperCase() + message.slice(1);
    },
  };
}
