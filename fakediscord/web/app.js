// The dicebot playground page: renders the message JSON fakediscord holds, acts as a user through its API.
//
// Safety: every text from the server (names, message content, embeds, labels) reaches the DOM through
// text nodes or attribute setters, never through innerHTML, so markup in a name or message shows as text.
// Link URLs are used only when they are http(s).

"use strict";

const EPHEMERAL = 1 << 6;
const LOADING = 1 << 7;
const SUB_COMMAND = 1;
const SUB_COMMAND_GROUP = 2;
const OPTION_TYPES = { 3: "text", 4: "integer", 5: "true/false", 6: "user", 7: "channel", 8: "role", 9: "mentionable", 10: "number" };
const BUTTON_STYLES = { 1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium" };
const COMPONENT_CHANGED = "This interaction failed: the message changed before your click arrived.";
const LOCALES = ["en-US", "en-GB", "de", "fr", "es-ES", "es-419", "it", "nl", "pl", "pt-BR", "sv-SE", "da", "no",
  "fi", "cs", "hu", "ro", "hr", "lt", "bg", "el", "ru", "uk", "tr", "vi", "id", "hi", "th", "ja", "ko", "zh-CN", "zh-TW"];

const state = {
  world: null,
  me: null,
  channel: null,
  messages: new Map(), // id -> message payload
  unread: new Set(),
  leaf: null, // the command (leaf path) chosen in the composer
  suggestion: 0,
  socket: null,
  retry: 0,
  fatal: null,
  peopleSignature: "",
  channelsSignature: "",
  commands: [], // as the server last sent them
  stickToBottom: false, // a scroll to the newest message is due in the next frame
};

// What each message payload looks like, for telling whether its node must be rebuilt: computed once per payload
// received rather than on every render (a game move renders the channel several times).
const payloadKeys = new WeakMap();

const $ = (id) => document.getElementById(id);

// -- small DOM helpers -----------------------------------------------------------------------------------

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function safeUrl(url) {
  return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
}

function compareIds(a, b) {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function userById(id) {
  return state.world?.users.find((u) => u.id === id) || null;
}

function colorOf(id) {
  const palette = ["#5865f2", "#3ba55c", "#faa61a", "#ed4245", "#eb459e", "#1abc9c", "#9b59b6", "#e67e22"];
  let hash = 0;
  for (const ch of String(id)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return palette[hash % palette.length];
}

// The first character as a reader sees it (an emoji, a letter with its accents): slice(0, 1) took half of an emoji's
// surrogate pair, which drew as U+FFFD.
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
function initial(name) {
  const [first] = graphemes.segment(name);
  return first.segment.toUpperCase();
}

function avatar(user) {
  const node = el("span", { class: "avatar", "aria-hidden": "true", text: initial(user?.global_name || user?.name || user?.username || "?") });
  node.style.backgroundColor = colorOf(user?.id || "0");
  return node;
}

function displayName(author) {
  return author.global_name || author.name || author.username || "unknown";
}

// Dates and times as the user's Discord client shows them: in the locale set for them in the sidebar.
function clientLocale() {
  return userById(state.me)?.locale || undefined;
}

function formatTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleTimeString(clientLocale(), { hour: "2-digit", minute: "2-digit" });
}

// -- Discord markdown to DOM ------------------------------------------------------------------------------

const INLINE = [
  ["escape", /\\([*_~`|\\<>#\-[\]()])/],
  ["code", /(`+)([\s\S]+?)\1/],
  ["bold", /\*\*([\s\S]+?)\*\*(?!\*)/],
  ["underline", /__([\s\S]+?)__(?!_)/],
  ["italic", /\*(?!\s)([\s\S]+?)\*(?!\*)/],
  ["italic", /\b_(?!\s)([\s\S]+?)_\b/],
  ["strike", /~~([\s\S]+?)~~/],
  ["spoiler", /\|\|([\s\S]+?)\|\|/],
  ["user", /<@!?(\d+)>/],
  ["role", /<@&(\d+)>/],
  ["channel", /<#(\d+)>/],
  ["emoji", /<a?:(\w+):(\d+)>/],
  ["time", /<t:(-?\d+)(?::([tTdDfFR]))?>/],
  ["link", /\[([^\]\n]+)\]\(<?(https?:\/\/[^\s)>]+)>?\)/],
  ["url", /https?:\/\/[^\s<]+[^\s<.,:;"')\]]/],
];

function inline(text) {
  const out = [];
  let rest = text;
  while (rest) {
    let best = null;
    for (const [kind, pattern] of INLINE) {
      const match = pattern.exec(rest);
      if (match && (best === null || match.index < best.match.index)) best = { kind, match };
    }
    if (best === null) {
      out.push(document.createTextNode(rest));
      break;
    }
    const { kind, match } = best;
    if (match.index > 0) out.push(document.createTextNode(rest.slice(0, match.index)));
    out.push(inlineNode(kind, match));
    rest = rest.slice(match.index + match[0].length);
  }
  return out;
}

function inlineNode(kind, match) {
  switch (kind) {
    case "escape": return document.createTextNode(match[1]);
    case "code": return el("code", { class: "inline-code", text: match[2] });
    case "bold": return el("strong", {}, inline(match[1]));
    case "underline": return el("u", {}, inline(match[1]));
    case "italic": return el("em", {}, inline(match[1]));
    case "strike": return el("s", {}, inline(match[1]));
    case "spoiler": {
      const node = el("span", { class: "spoiler", tabindex: "0", title: "Spoiler" }, inline(match[1]));
      node.addEventListener("click", () => node.classList.add("revealed"));
      return node;
    }
    case "user": {
      const user = userById(match[1]);
      return el("span", { class: "mention", text: `@${user ? user.name : "unknown-user"}` });
    }
    case "role": return el("span", { class: "mention", text: "@role" });
    case "channel": {
      const channel = state.world?.channels.find((c) => c.id === match[1]);
      return el("span", { class: "mention", text: `#${channel ? channel.name : "unknown"}` });
    }
    case "emoji": return el("span", { class: "custom-emoji", text: `:${match[1]}:` });
    case "time": {
      const date = new Date(Number(match[1]) * 1000);
      // A time out of Date's range (<t:9999999999999>) would throw below and stop the whole channel rendering.
      if (Number.isNaN(date.getTime())) return document.createTextNode(match[0]);
      const text = match[2] === "R" ? relativeTime(date) : date.toLocaleString(clientLocale());
      return el("time", { class: "timestamp-mention", datetime: date.toISOString(), text });
    }
    case "link": return link(match[2], inline(match[1]));
    default: return bareLink(match[0]);
  }
}

// A message link (the bot's "already running here: …") jumps to the message in this page, as in Discord's client;
// a channel link opens the channel; any other link opens in a new tab.
const JUMP_URL = /^https:\/\/(?:\w+\.)?discord(?:app)?\.com\/channels\/(?:\d+|@me)\/(\d+)(?:\/(\d+))?$/;

function link(href, child) {
  const jump = JUMP_URL.exec(href);
  if (!jump) return el("a", { href, target: "_blank", rel: "noopener noreferrer" }, child);
  const node = el("a", { href, class: "jump-link" }, child);
  node.addEventListener("click", (event) => {
    event.preventDefault();
    jumpTo(jump[1], jump[2]);
  });
  return node;
}

// A bare link to a channel of this server reads as Discord's client writes it: a pill naming the channel,
// "#kniffel › 💬" for a message in it, instead of a 70-character URL. A link to a channel the page does not know
// stays the URL.
function bareLink(url) {
  const jump = JUMP_URL.exec(url);
  const channel = jump && state.world?.channels.find((c) => c.id === jump[1]);
  if (!channel) return link(url, document.createTextNode(url));
  const node = link(url, [`#${channel.name}`, jump[2] ? " › 💬" : null]);
  node.classList.add("mention", "channel-pill");
  node.title = jump[2] ? `A message in #${channel.name}` : `#${channel.name}`;
  return node;
}

function jumpTo(channelId, messageId) {
  if (channelId !== state.channel && state.world?.channels.some((c) => c.id === channelId)) selectChannel(channelId);
  if (!messageId) return;
  const target = [...$("messages").children].find((node) => node.dataset.messageId === messageId);
  if (!target) return notice("That message is not in this channel any more.");
  target.scrollIntoView({ block: "center" });
  target.classList.add("jumped");
  window.setTimeout(() => target.classList.remove("jumped"), 2000);
}

function relativeTime(date) {
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(clientLocale(), { numeric: "auto" });
  const units = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size || unit === "second") return format.format(Math.round(seconds / size), unit);
  }
  return "";
}

function markdown(text) {
  const root = el("div", { class: "markdown" });
  const lines = String(text || "").split("\n");
  let quote = null;
  let list = null;
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) {
      const target = quote || root;
      target.append(el("div", { class: "md-line" }, inline(paragraph.join("\n"))));
      paragraph = [];
    }
  };
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.startsWith("```")) {
      flush();
      if (quote && !quote.dataset.multi) quote = null; // a "> " quote ends at the first line without ">"
      const body = [];
      const first = line.slice(3);
      const closedOnSameLine = first.endsWith("```") && first.length >= 3;
      if (closedOnSameLine) body.push(first.slice(0, -3));
      else {
        i++;
        while (i < lines.length && !lines[i].startsWith("```")) body.push(lines[i++]);
      }
      (quote || root).append(el("pre", { class: "code-block" }, el("code", { text: body.join("\n") })));
      list = null;
      continue;
    }
    if (line.startsWith(">>> ")) {
      flush();
      quote = el("blockquote", { dataset: { multi: "1" } });
      root.append(quote);
      line = line.slice(4);
    } else if (quote?.dataset.multi) {
      // a ">>> " quote runs to the end of the message
    } else if (line.startsWith("> ") || line === ">") {
      flush();
      if (!quote) {
        quote = el("blockquote", {});
        root.append(quote);
      }
      line = line.slice(2);
    } else if (quote) {
      flush();
      quote = null;
    }
    const target = quote || root;
    const header = /^(#{1,3}) (.*)$/.exec(line);
    const subtext = /^-# (.*)$/.exec(line);
    const item = /^\s*[-*] (.*)$/.exec(line);
    if (header) {
      flush();
      target.append(el(`h${header[1].length + 2}`, { class: "md-header" }, inline(header[2])));
      list = null;
    } else if (subtext) {
      flush();
      target.append(el("div", { class: "md-subtext" }, inline(subtext[1])));
      list = null;
    } else if (item) {
      flush();
      if (!list) {
        list = el("ul", { class: "md-list" });
        target.append(list);
      }
      list.append(el("li", {}, inline(item[1])));
    } else {
      list = null;
      paragraph.push(line);
      flush();
    }
  }
  flush();
  return root;
}

// -- messages ---------------------------------------------------------------------------------------------

function renderMessage(message) {
  const author = message.author;
  const ephemeral = (message.flags & EPHEMERAL) !== 0;
  const loading = (message.flags & LOADING) !== 0;
  // As Discord's client marks a message that mentions the reader: whose turn it is stands out on a phone (QA).
  const content = typeof message.content === "string" ? message.content : "";
  const mentionsMe = Boolean(state.me) && (content.includes(`<@${state.me}>`) || content.includes(`<@!${state.me}>`));
  const classes = `message${ephemeral ? " ephemeral" : ""}${mentionsMe ? " mentions-me" : ""}`;
  const node = el("li", { class: classes, dataset: { messageId: message.id } });
  const metadata = message.interaction_metadata;
  if (metadata?.user && message.playground?.command) {
    const who = metadata.user.global_name || metadata.user.username;
    node.append(el("div", { class: "reply-line" }, el("span", { class: "reply-user", text: `@${who}` }), ` used ${message.playground.command}`));
  }
  node.append(avatar({ ...author, name: displayName(author) }));
  const body = el("div", { class: "message-body" });
  body.append(
    el("header", { class: "message-header" },
      el("span", { class: "author", text: displayName(author) }),
      author.bot ? el("span", { class: "bot-tag", text: "APP" }) : null,
      el("time", { class: "time", datetime: message.timestamp, text: formatTime(message.timestamp) })),
  );
  if (loading) {
    body.append(el("div", { class: "thinking" }, `${displayName(author)} is thinking`, el("span", { class: "dots", text: "…" })));
  } else if (message.content) {
    const content = markdown(message.content);
    content.classList.add("content");
    if (message.edited_timestamp) (content.lastElementChild || content).append(el("span", { class: "edited", text: " (edited)" }));
    body.append(content);
  }
  for (const embed of message.embeds || []) body.append(renderEmbed(embed));
  for (const attachment of message.attachments || []) {
    body.append(el("div", { class: "attachment", text: `📎 ${attachment.filename} (${attachment.size} bytes)` }));
  }
  const components = renderComponents(message, message.components || []);
  if (components) body.append(components);
  if (!message.content && !loading && message.edited_timestamp) {
    body.append(el("span", { class: "edited", text: "(edited)" })); // with text, it follows the text instead
  }
  const failed = (state.world?.interactions || []).some((i) => i.message_id === message.id && i.state === "failed");
  if (failed) body.append(el("div", { class: "interaction-failed", text: "⚠ This interaction failed" }));
  if (ephemeral) {
    body.append(el("div", { class: "ephemeral-note" },
      el("span", { "aria-hidden": "true", text: "👁 " }), "Only you can see this · ",
      el("button", { type: "button", class: "link-button dismiss", text: "Dismiss message", onclick: () => act("dismiss", { message: message.id }) })));
  }
  node.append(body);
  return node;
}

function renderEmbed(embed) {
  const node = el("div", { class: "embed" });
  if (typeof embed.color === "number") node.style.borderLeftColor = `#${embed.color.toString(16).padStart(6, "0")}`;
  if (embed.author?.name) {
    const url = safeUrl(embed.author.url);
    node.append(url ? el("a", { class: "embed-author", href: url, target: "_blank", rel: "noopener noreferrer", text: embed.author.name })
      : el("div", { class: "embed-author", text: embed.author.name }));
  }
  if (embed.title) {
    const url = safeUrl(embed.url);
    const title = el("div", { class: "embed-title" });
    title.append(url ? el("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, inline(embed.title)) : el("span", {}, inline(embed.title)));
    node.append(title);
  }
  if (embed.description) {
    const description = markdown(embed.description);
    description.classList.add("embed-description");
    node.append(description);
  }
  const fields = embed.fields || [];
  if (fields.length) {
    const grid = el("div", { class: "embed-fields" });
    let row = null;
    for (const field of fields) {
      if (!field.inline || !row || row.childElementCount >= 3) {
        row = el("div", { class: `embed-row${field.inline ? " inline" : ""}` });
        grid.append(row);
      }
      const value = markdown(field.value);
      value.classList.add("embed-field-value");
      row.append(el("div", { class: "embed-field" }, el("div", { class: "embed-field-name" }, inline(field.name)), value));
      if (!field.inline) row = null;
    }
    node.append(grid);
  }
  if (embed.footer?.text || embed.timestamp) {
    const parts = [embed.footer?.text, embed.timestamp ? new Date(embed.timestamp).toLocaleString(clientLocale()) : null].filter(Boolean);
    node.append(el("div", { class: "embed-footer", text: parts.join(" • ") }));
  }
  return node;
}

function emojiNode(emoji) {
  if (!emoji) return null;
  return el("span", { class: "emoji", text: emoji.id ? `:${emoji.name}:` : emoji.name });
}

function renderComponents(message, components) {
  if (!components.length) return null;
  const root = el("div", { class: "components" });
  for (const component of components) root.append(renderComponent(message, component));
  return root;
}

function renderComponent(message, component) {
  switch (component.type) {
    case 1: return el("div", { class: "action-row" }, (component.components || []).map((c) => renderComponent(message, c)));
    case 2: return renderButton(message, component);
    case 3: case 5: case 6: case 7: case 8: return renderSelect(message, component);
    case 10: return markdown(component.content);
    case 9: return el("div", { class: "section" }, (component.components || []).map((c) => renderComponent(message, c)),
      component.accessory ? renderComponent(message, component.accessory) : null);
    case 14: return el("hr", { class: "separator" });
    case 17: {
      const box = el("div", { class: "container" }, (component.components || []).map((c) => renderComponent(message, c)));
      if (typeof component.accent_color === "number") box.style.borderLeftColor = `#${component.accent_color.toString(16).padStart(6, "0")}`;
      return box;
    }
    default: return el("div", { class: "unsupported", text: `[component type ${component.type}]` });
  }
}

function renderButton(message, button) {
  const style = BUTTON_STYLES[button.style] || "secondary";
  const children = [emojiNode(button.emoji), button.label ? el("span", { class: "label", text: button.label }) : null];
  if (button.style === 5) {
    const url = safeUrl(button.url);
    return el("a", { class: "button link", href: url || undefined, target: "_blank", rel: "noopener noreferrer", "aria-disabled": button.disabled ? "true" : undefined }, children, el("span", { class: "external", "aria-hidden": "true", text: " ↗" }));
  }
  const pending = (state.world?.interactions || []).some((i) => i.message_id === message.id && i.custom_id === button.custom_id && i.state === "pending");
  return el("button", {
    type: "button",
    class: `button ${style}${pending ? " pending" : ""}`,
    disabled: Boolean(button.disabled),
    dataset: { customId: button.custom_id || "" },
    onclick: () => act("click", { message: message.id, custom_id: button.custom_id, edits: message.playground?.edits }),
  }, children);
}

function selectOptions(select) {
  if (select.type === 3) return select.options || [];
  if (select.type === 5) return (state.world?.users || []).map((u) => ({ label: u.name, value: u.id }));
  if (select.type === 8) return (state.world?.channels || []).map((c) => ({ label: `#${c.name}`, value: c.id }));
  return [];
}

function renderSelect(message, select) {
  const options = selectOptions(select);
  const chosen = options.filter((o) => o.default);
  const min = select.min_values ?? 1;
  const max = select.max_values ?? 1;
  const wrapper = el("div", { class: `select${select.disabled ? " disabled" : ""}`, dataset: { customId: select.custom_id } });
  const summary = chosen.length ? chosen.map((o) => o.label).join(", ") : select.placeholder || "Make a selection";
  const toggle = el("button", {
    type: "button", class: `select-toggle${chosen.length ? "" : " placeholder"}`, disabled: Boolean(select.disabled),
    "aria-haspopup": "listbox", "aria-expanded": "false",
  }, el("span", { class: "select-summary", text: summary }), el("span", { class: "chevron", "aria-hidden": "true", text: "▾" }));
  const list = el("ul", { class: "select-menu", role: "listbox", hidden: true, "aria-multiselectable": max > 1 ? "true" : undefined });
  const picked = new Set(chosen.map((o) => o.value));
  const submit = () => act("select", { message: message.id, custom_id: select.custom_id, values: [...picked], edits: message.playground?.edits });
  for (const option of options) {
    const item = el("li", { role: "option", class: "select-option", tabindex: "0", "aria-selected": picked.has(option.value) ? "true" : "false", dataset: { value: option.value } },
      emojiNode(option.emoji),
      el("span", { class: "option-text" }, el("span", { class: "option-label", text: option.label }),
        option.description ? el("span", { class: "option-description", text: option.description }) : null));
    const choose = () => {
      if (max === 1) {
        picked.clear();
        picked.add(option.value);
        list.hidden = true;
        submit();
        return;
      }
      if (picked.has(option.value)) picked.delete(option.value);
      else if (picked.size < max) picked.add(option.value);
      item.setAttribute("aria-selected", picked.has(option.value) ? "true" : "false");
    };
    item.addEventListener("click", choose);
    item.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); choose(); } });
    list.append(item);
  }
  if (max > 1) {
    list.append(el("li", { class: "select-apply" }, el("button", { type: "button", class: "button primary", text: `Choose (${min}–${max})`, onclick: () => {
      if (picked.size < min) return notice(`Pick at least ${min}.`);
      list.hidden = true;
      submit();
    } })));
  }
  toggle.addEventListener("click", () => {
    list.hidden = !list.hidden;
    // Open upwards when the menu would run under the composer, as Discord does near the bottom.
    const room = $("messages").getBoundingClientRect().bottom - toggle.getBoundingClientRect().bottom;
    list.classList.toggle("up", !list.hidden && room < Math.min(list.scrollHeight, 320));
    toggle.setAttribute("aria-expanded", String(!list.hidden));
  });
  wrapper.append(toggle, list);
  return wrapper;
}

function channelMessages(channelId) {
  return [...state.messages.values()].filter((m) => m.channel_id === channelId).sort((a, b) => compareIds(a.id, b.id));
}

function payloadKey(message) {
  let key = payloadKeys.get(message);
  if (key === undefined) {
    key = JSON.stringify([message.playground?.edits, message.edited_timestamp, message.flags, message.content, message.embeds, message.components]);
    payloadKeys.set(message, key);
  }
  return key;
}

function renderMessages() {
  const list = $("messages");
  // Read before this pass writes to the DOM: reading after would lay the page out once more, on every update.
  const atBottom = state.stickToBottom || list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  const wanted = channelMessages(state.channel);
  const existing = new Map([...list.children].map((node) => [node.dataset.messageId, node]));
  let previous = null;
  let answered = false; // a new public message answers this user's own press or command: the page follows it
  for (const message of wanted) {
    let node = existing.get(message.id);
    if (!node && answersMe(message)) answered = true;
    const version = `${payloadKey(message)}${interactionKey(message.id)}`;
    if (!node || node.dataset.version !== version) {
      const fresh = renderMessage(message);
      fresh.dataset.version = version;
      if (node) node.replaceWith(fresh);
      node = fresh;
    }
    existing.delete(message.id);
    const expected = previous ? previous.nextSibling : list.firstChild;
    if (expected !== node) list.insertBefore(node, expected);
    previous = node;
  }
  for (const node of existing.values()) node.remove();
  if ((atBottom || answered) && !state.stickToBottom) {
    // Scroll in the next frame, when the browser lays the page out anyway: scrolling now would lay it out at once,
    // again for each of the updates a click brings in one frame (the interaction, the edit, the answer).
    state.stickToBottom = true;
    window.requestAnimationFrame(() => {
      state.stickToBottom = false;
      list.scrollTop = list.scrollHeight;
    });
  }
}

// Whether a message is the public answer to an interaction of the user the page acts as: Rematch pressed on a
// final board scrolled up above a long review posts the new board at the bottom, which the page must show (QA: it
// stayed where it was). An ephemeral answer (a refusal, a hint) leaves the page where the user is reading.
function answersMe(message) {
  return (message.flags & EPHEMERAL) === 0 && message.interaction_metadata?.user?.id === state.me;
}

function interactionKey(messageId) {
  return (state.world?.interactions || []).filter((i) => i.message_id === messageId && i.state !== "done").map((i) => `${i.custom_id}:${i.state}`).join(",");
}

// -- world: channels, members, switcher -----------------------------------------------------------------

function renderWorld() {
  const world = state.world;
  if (!world) return;
  setText($("guild-name"), world.guild ? world.guild.name : "No server");
  if (!world.channels.some((c) => c.id === state.channel)) state.channel = world.channels[0]?.id || null;
  // Rebuild the channel list only when it changed: a world update comes with every click, and writing the DOM
  // before renderMessages reads the scroll position would make the browser lay the page out twice.
  const channelsSignature = JSON.stringify([world.channels, state.channel, [...state.unread]]);
  if (channelsSignature !== state.channelsSignature) {
    state.channelsSignature = channelsSignature;
    renderChannels(world);
  }
  const current = world.channels.find((c) => c.id === state.channel);
  setText($("channel-name"), current ? `# ${current.name}` : "");
  setText($("channel-topic"), current?.topic || "");
  const people = world.users.filter((u) => !u.bot);
  // Rebuild the switcher, locales and members only when they changed, so an open drop-down stays open.
  const signature = JSON.stringify([state.me, world.users]);
  if (signature !== state.peopleSignature) {
    state.peopleSignature = signature;
    renderPeople(world, people);
  }
  const offline = !world.connected;
  showBanner(state.fatal ? `The bot crashed: ${state.fatal}` : offline ? `${world.bot.name} is connecting…` : null, Boolean(state.fatal));
  renderModal();
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function renderChannels(world) {
  $("channels").replaceChildren(...world.channels.map((channel) => el("li", {},
    el("button", {
      type: "button",
      class: `channel-link${channel.id === state.channel ? " active" : ""}${state.unread.has(channel.id) ? " unread" : ""}`,
      dataset: { channelId: channel.id },
      "aria-current": channel.id === state.channel ? "page" : undefined,
      onclick: () => selectChannel(channel.id),
    }, el("span", { class: "hash", "aria-hidden": "true", text: "#" }), channel.name))));
}

function renderPeople(world, people) {
  const switcher = $("user-switcher");
  switcher.replaceChildren(...people.map((u) => el("option", { value: u.id, selected: u.id === state.me, text: u.name })));
  const me = userById(state.me);
  const locale = $("locale");
  const locales = LOCALES.includes(me?.locale) ? LOCALES : [me?.locale, ...LOCALES].filter(Boolean);
  locale.replaceChildren(...locales.map((l) => el("option", { value: l, selected: l === me?.locale, text: l })));
  const bots = world.users.filter((u) => u.bot);
  $("member-list").replaceChildren(
    ...[...bots, ...people].map((user) => el("li", { class: `member${user.id === state.me ? " me" : ""}`, dataset: { userId: user.id } },
      avatar(user),
      el("span", { class: "member-name", text: user.name }),
      user.bot ? el("span", { class: "bot-tag", text: "APP" }) : null,
      user.id === state.me ? el("span", { class: "you", text: "(you)" }) : null)),
  );
}

function showBanner(text, fatal = false) {
  const banner = $("banner");
  if (banner.hidden !== !text) banner.hidden = !text;
  setText(banner, text || "");
  if (banner.classList.contains("fatal") !== fatal) banner.classList.toggle("fatal", fatal);
}

function selectChannel(id) {
  state.channel = id;
  state.unread.delete(id);
  remember();
  closePanels();
  renderWorld();
  renderMessages();
  $("messages").scrollTop = $("messages").scrollHeight;
}

function remember() {
  const url = new URL(window.location.href);
  if (state.me) url.searchParams.set("as", state.me);
  if (state.channel) url.searchParams.set("channel", state.channel);
  window.history.replaceState(null, "", url);
}

function switchUser(id) {
  state.me = id;
  state.peopleSignature = "";
  state.messages.clear();
  state.world = null;
  remember();
  $("messages").replaceChildren();
  send({ type: "view", user: id });
}

// -- the live connection --------------------------------------------------------------------------------

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${window.location.host}/ui/ws`);
  state.socket = socket;
  socket.addEventListener("open", () => {
    state.retry = 0;
    state.peopleSignature = "";
    state.messages.clear();
    $("messages").replaceChildren();
    document.body.dataset.connected = "true";
    send({ type: "view", user: state.me });
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    document.body.dataset.connected = "false";
    if (!state.fatal) showBanner("Connection lost; reconnecting…");
    const delay = Math.min(2000, 250 * 2 ** state.retry++);
    window.setTimeout(connect, delay);
  });
}

function send(data) {
  if (state.socket?.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(data));
}

function receive(data) {
  if (data.type === "world") {
    // The server sends the commands only when they changed since it last told this page.
    if ("commands" in data) state.commands = data.commands;
    else data.commands = state.commands;
    reportFailedCommands(state.world, data);
    state.world = data;
    if (data.fatal) state.fatal = data.fatal;
    if (!state.me || !data.users.some((u) => u.id === state.me && !u.bot)) {
      const first = data.users.find((u) => !u.bot);
      if (first && first.id !== state.me) {
        state.me = first.id;
        remember();
        send({ type: "view", user: state.me });
        return;
      }
    }
    renderWorld();
    renderMessages();
    refreshComposer();
  } else if (data.type === "messages") {
    // Sent before this page switched user (the server starts the new user's view afresh): not theirs to see.
    if (data.for !== state.me) return;
    for (const message of data.upsert) {
      const known = state.messages.has(message.id);
      state.messages.set(message.id, message);
      if (!known && message.channel_id !== state.channel && state.world) state.unread.add(message.channel_id);
    }
    for (const id of data.remove) state.messages.delete(id);
    if (state.world) {
      renderWorld();
      renderMessages();
    }
    document.body.dataset.synced = String(Date.now());
  } else if (data.type === "fatal") {
    state.fatal = data.error;
    showBanner(`The bot crashed: ${data.error}`, true);
  }
}

function reportFailedCommands(before, after) {
  // A failed click is marked under its message; a failed slash command has no message to mark.
  const known = new Set((before?.interactions || []).filter((i) => i.state === "failed").map((i) => i.id));
  const failed = (after.interactions || []).find((i) => i.state === "failed" && !i.message_id && !known.has(i.id));
  if (before && failed) notice("The application did not respond.");
}

async function act(action, body) {
  try {
    const response = await fetch(`/ui/api/${action}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user: state.me, channel: state.channel, ...body }),
    });
    const result = await response.json();
    // A press on a message that changed since this page showed it (an edit replaced or disabled the control
    // under a double click, or deleted the message): what Discord's client says, not fakediscord's diagnostic.
    if (!result.ok) notice(result.changed ? COMPONENT_CHANGED : result.error);
    else clearNotice(); // an old complaint under a request that worked read as if that one had failed (QA)
    return result;
  } catch (error) {
    notice(`The playground is not reachable (${error.message}).`);
    return { ok: false };
  }
}

let noticeTimer = null;
function clearNotice() {
  window.clearTimeout(noticeTimer);
  $("notice").hidden = true;
}

function notice(text) {
  const node = $("notice");
  node.textContent = text;
  node.hidden = false;
  window.clearTimeout(noticeTimer);
  noticeTimer = window.setTimeout(() => { node.hidden = true; }, 6000);
}

// -- the composer: slash commands with autocomplete --------------------------------------------------------

function localized(item, key) {
  const locale = userById(state.me)?.locale;
  return item[`${key}_localizations`]?.[locale] || item[key];
}

// Every command the user can run, by its path of declared names (`path`, what the bot gets) and as Discord's
// client shows it in the user's locale (`shown`, the name_localizations: `/kniffel zasady` for `/kniffel rules`).
function leaves() {
  const out = [];
  const walk = (node, path, shown) => {
    const nested = (node.options || []).filter((o) => o.type === SUB_COMMAND || o.type === SUB_COMMAND_GROUP);
    if (!nested.length) out.push({ path: path.join(" "), shown: shown.join(" "), description: localized(node, "description"), options: node.options || [] });
    for (const child of nested) walk(child, [...path, child.name], [...shown, localized(child, "name")]);
  };
  for (const command of state.world?.commands || []) walk(command, [command.name], [localized(command, "name")]);
  return out.sort((a, b) => a.shown.localeCompare(b.shown));
}

// The typed command (by its shown names, or its declared ones) and its `name:value` options by declared name.
function parseTyped(text) {
  const trimmed = text.replace(/^\//, "");
  const all = leaves();
  const typedAs = (l) => [l.shown, l.path].find((name) => trimmed === name || trimmed.startsWith(`${name} `));
  const leaf = all.filter(typedAs).sort((a, b) => typedAs(b).length - typedAs(a).length)[0];
  const values = {};
  if (leaf) {
    const tail = trimmed.slice(typedAs(leaf).length);
    const pattern = /([\p{L}\p{N}_][\p{L}\p{N}_'-]*):(\S.*?)(?=\s+[\p{L}\p{N}_][\p{L}\p{N}_'-]*:|$)/gu;
    for (const match of tail.matchAll(pattern)) {
      const option = leaf.options.find((o) => match[1] === o.name || match[1] === localized(o, "name"));
      values[option ? option.name : match[1]] = match[2].trim();
    }
  }
  return { leaf, values, all, trimmed, typed: leaf ? typedAs(leaf) : null };
}

function refreshComposer() {
  const input = $("composer-input");
  const text = input.value;
  const suggestions = $("suggestions");
  if (!text.startsWith("/")) {
    suggestions.hidden = true;
    setLeaf(null);
    return;
  }
  const { leaf, all, trimmed, typed } = parseTyped(text);
  setLeaf(leaf || null);
  const query = trimmed.trim().toLowerCase();
  const typingName = !leaf || trimmed === typed; // still typing the name: keep suggesting
  const fits = (name) => name.startsWith(query) || (query && name.includes(query));
  const matches = !typingName ? [] : all.filter((l) => fits(l.shown) || fits(l.path)).slice(0, 25);
  state.suggestion = Math.min(state.suggestion, Math.max(0, matches.length - 1));
  suggestions.replaceChildren(...matches.map((l, index) => el("li", {
    role: "option", class: `suggestion${index === state.suggestion ? " active" : ""}`, "aria-selected": index === state.suggestion ? "true" : "false",
    dataset: { path: l.path },
    onmousedown: (event) => { event.preventDefault(); chooseLeaf(l); },
  }, el("span", { class: "suggestion-path", text: `/${l.shown}` }),
  l.options.length ? el("span", { class: "suggestion-options", text: l.options.map((o) => (o.required ? localized(o, "name") : `[${localized(o, "name")}]`)).join(" ") }) : null,
  el("span", { class: "suggestion-description", text: l.description }))));
  suggestions.hidden = matches.length === 0;
  if (!matches.length && !leaf && state.world) {
    suggestions.replaceChildren(el("li", { class: "suggestion empty", text: state.world.commands.length ? "No matching command" : "The bot has not synced its commands yet" }));
    suggestions.hidden = false;
  }
}

function chooseLeaf(leaf) {
  const input = $("composer-input");
  input.value = `/${leaf.shown} `;
  state.suggestion = 0;
  refreshComposer();
  const first = $("options").querySelector("select, input");
  (first || input).focus();
}

function setLeaf(leaf) {
  const panel = $("options");
  if (leaf?.path === state.leaf?.path && leaf) return;
  state.leaf = leaf;
  if (!leaf || !leaf.options.length) {
    panel.hidden = true;
    panel.replaceChildren();
    return;
  }
  panel.hidden = false;
  panel.replaceChildren(...leaf.options.map((option) => optionField(option)));
}

function optionField(option) {
  const id = `option-${option.name}`;
  const type = OPTION_TYPES[option.type] || "text";
  const hint = [type];
  if (option.min_value !== undefined && option.min_value !== null) hint.push(`${option.min_value}–${option.max_value ?? "…"}`);
  let control;
  if (option.choices?.length) {
    control = el("select", { id, name: option.name },
      el("option", { value: "", text: option.required ? "Choose…" : "(default)" }),
      option.choices.map((c) => el("option", { value: String(c.value), text: localized(c, "name") })));
  } else if (option.type === 6 || option.type === 9) {
    control = el("select", { id, name: option.name }, el("option", { value: "", text: option.required ? "Choose a member…" : "(nobody)" }),
      (state.world?.users || []).map((u) => el("option", { value: u.id, text: u.bot ? `${u.name} (app)` : u.name })));
  } else if (option.type === 7) {
    control = el("select", { id, name: option.name }, el("option", { value: "", text: "(none)" }),
      (state.world?.channels || []).map((c) => el("option", { value: c.id, text: `#${c.name}` })));
  } else if (option.type === 5) {
    control = el("select", { id, name: option.name }, el("option", { value: "", text: "(default)" }),
      el("option", { value: "true", text: "True" }), el("option", { value: "false", text: "False" }));
  } else if (option.type === 4 || option.type === 10) {
    control = el("input", { id, name: option.name, type: "number", step: option.type === 4 ? "1" : "any", min: option.min_value, max: option.max_value, placeholder: hint.slice(1).join(" ") || type });
  } else {
    control = el("input", { id, name: option.name, type: "text", minlength: option.min_length, maxlength: option.max_length });
  }
  return el("label", { class: "option", for: id },
    el("span", { class: "option-name" }, localized(option, "name"), option.required ? el("span", { class: "required", text: "*" }) : null),
    el("span", { class: "option-hint", text: `${localized(option, "description")} · ${hint.join(" ")}` }),
    control);
}

async function submitComposer(event) {
  event.preventDefault();
  const input = $("composer-input");
  const text = input.value.trim();
  if (!text) return;
  if (!text.startsWith("/")) {
    const result = await act("message", { content: text });
    if (result.ok) input.value = "";
    return;
  }
  const suggestions = [...$("suggestions").querySelectorAll(".suggestion[data-path]")];
  if (!state.leaf && suggestions.length) {
    const chosen = leaves().find((l) => l.path === suggestions[state.suggestion].dataset.path);
    if (chosen) chooseLeaf(chosen);
    if (chosen && !chosen.options.some((o) => o.required)) return submitComposer(event);
    return;
  }
  const { leaf, values } = parseTyped(text);
  if (!leaf) return notice(`Unknown command ${text.split(/\s/)[0]}`);
  const options = {};
  for (const field of $("options").querySelectorAll("select, input")) if (field.value !== "") options[field.name] = field.value;
  Object.assign(options, values);
  const missing = leaf.options.filter((o) => o.required && !(o.name in options)).map((o) => localized(o, "name"));
  if (missing.length) return notice(`Fill in ${missing.join(", ")}`);
  // Sent as shown, as typed in Discord's client; fakediscord maps the names back to the declared ones.
  const result = await act("command", { command: leaf.shown, options });
  if (result.ok) {
    input.value = "";
    refreshComposer();
  }
}

function composerKeys(event) {
  if (event.key === "Enter" && !event.isComposing) {
    // The composer has option fields too, so the browser would not submit it on Enter by itself.
    submitComposer(event);
    return;
  }
  const items = [...$("suggestions").querySelectorAll(".suggestion[data-path]")];
  if (!items.length || $("suggestions").hidden) return;
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    state.suggestion = (state.suggestion + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
    refreshComposer();
  } else if (event.key === "Tab") {
    event.preventDefault();
    const chosen = leaves().find((l) => l.path === items[state.suggestion].dataset.path);
    if (chosen) chooseLeaf(chosen);
  }
}

// -- modals ----------------------------------------------------------------------------------------------

function renderModal() {
  const backdrop = $("modal");
  const open = state.world?.modals?.[0];
  if (!open) {
    if (!backdrop.hidden) backdrop.hidden = true;
    if (backdrop.firstChild) backdrop.replaceChildren();
    delete backdrop.dataset.interaction;
    return;
  }
  if (backdrop.dataset.interaction === open.interaction_id) return;
  backdrop.dataset.interaction = open.interaction_id;
  const modal = open.modal;
  const inputs = [];
  const collect = (component) => {
    if (component.type === 1) (component.components || []).forEach(collect);
    else if (component.type === 18) collect({ ...component.component, label: component.label, description: component.description });
    else if (component.type === 4 || component.type === 3) inputs.push(component);
  };
  (modal.components || []).forEach(collect);
  const form = el("form", { class: "modal", role: "dialog", "aria-label": modal.title },
    el("h2", { class: "modal-title", text: modal.title }),
    inputs.map((input) => {
      const control = input.type === 4
        ? el(input.style === 2 ? "textarea" : "input", { name: input.custom_id, placeholder: input.placeholder, required: input.required !== false, minlength: input.min_length, maxlength: input.max_length })
        : el("select", { name: input.custom_id, multiple: (input.max_values ?? 1) > 1 }, (input.options || []).map((o) => el("option", { value: o.value, selected: o.default, text: o.label })));
      if (input.value && input.type === 4) control.value = input.value;
      return el("label", { class: "modal-field" }, el("span", { text: input.label || input.custom_id }), control);
    }),
    el("div", { class: "modal-actions" },
      el("button", { type: "button", class: "button secondary", text: "Cancel", onclick: () => act("close-modal", { interaction: open.interaction_id }) }),
      el("button", { type: "submit", class: "button primary", text: "Submit" })));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = {};
    for (const field of form.querySelectorAll("input, textarea, select")) {
      values[field.name] = field.multiple ? [...field.selectedOptions].map((o) => o.value) : field.value;
    }
    act("modal", { interaction: open.interaction_id, values });
  });
  backdrop.replaceChildren(form);
  backdrop.hidden = false;
}

// -- phone layout ----------------------------------------------------------------------------------------

function closePanels() {
  document.body.classList.remove("show-sidebar", "show-members");
}

// -- start -----------------------------------------------------------------------------------------------

function start() {
  const params = new URLSearchParams(window.location.search);
  state.me = params.get("as");
  state.channel = params.get("channel");
  $("composer").addEventListener("submit", submitComposer);
  $("composer-input").addEventListener("input", () => { state.suggestion = 0; refreshComposer(); });
  $("composer-input").addEventListener("keydown", composerKeys);
  $("options").addEventListener("keydown", (event) => { if (event.key === "Enter") submitComposer(event); });
  $("user-switcher").addEventListener("change", (event) => switchUser(event.target.value));
  $("locale").addEventListener("change", (event) => act("locale", { locale: event.target.value }));
  $("add-user").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("new-user-name");
    const result = await act("add-user", { name: name.value });
    if (result.ok) {
      name.value = "";
      switchUser(result.user);
    }
  });
  $("toggle-sidebar").addEventListener("click", () => document.body.classList.toggle("show-sidebar"));
  $("toggle-members").addEventListener("click", () => document.body.classList.toggle("show-members"));
  $("messages").addEventListener("click", closePanels);
  document.addEventListener("click", (event) => {
    for (const menu of document.querySelectorAll(".select-menu:not([hidden])")) {
      if (!menu.parentElement.contains(event.target)) {
        menu.hidden = true;
        menu.parentElement.querySelector(".select-toggle")?.setAttribute("aria-expanded", "false");
      }
    }
  });
  connect();
}

start();
