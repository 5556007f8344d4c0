/** The table chat: messages go out over the table's WebSocket; every message is shown as text, never HTML. */

const KEEP_MESSAGES = 100;

export function setupChat({ form, input, log, error, send, me }) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (!send({ type: "chat", text })) {
      error.textContent = "Not connected: the message was not sent.";
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
    },
    refuse(message) {
      error.textContent = message.charAt(0).toUpperCase() + message.slice(1);
    },
  };
}
