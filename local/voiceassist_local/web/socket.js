// A question over the WebSocket API (AWS): one connection per question. Browsers cannot set an Authorization
// header on a WebSocket, so the ID token is offered as a subprotocol beside `voiceassist` (the $connect
// authorizer reads it there; it never goes in the URL). The page sends {"action": "ask", ...the body of
// POST /v1/query} and receives {"type", "data"} messages: the same events as the SSE stream.
import { ApiError, EventFeed, STREAM_CUT } from "./api.js";

const APP_PROTOCOL = "voiceassist";
const OPEN_TIMEOUT_MS = 10000;

// Resolves to the done event's data, or to null when the socket cannot open (refused, unreachable, or no
// answer to the handshake in time): the caller falls back to POST /v1/query. Once open, a close before
// `done`, an `error` event or an unreadable message rejects with an ApiError.
export function askOverWebSocket(url, token, request, onEvent) {
  return new Promise((resolve, reject) => {
    const feed = new EventFeed(onEvent);
    let socket;
    try {
      socket = new WebSocket(url, token ? [APP_PROTOCOL, token] : [APP_PROTOCOL]);
    } catch (err) {
      resolve(null); // a malformed URL or token: nothing was sent
      return;
    }
    let opened = false;
    let settled = false;
    const timer = setTimeout(() => finish(resolve, null), OPEN_TIMEOUT_MS);
    function finish(settle, value) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close(1000);
      settle(value);
    }
    socket.onopen = () => {
      opened = true;
      clearTimeout(timer);
      socket.send(JSON.stringify({ action: "ask", ...request }));
    };
    socket.onmessage = (message) => {
      let item;
      try {
        item = JSON.parse(message.data);
      } catch (err) {
        finish(reject, new ApiError(0, "stream_unreadable", "The answer could not be read. Ask again."));
        return;
      }
      try {
        feed.take(item.type, item.data || {});
      } catch (err) {
        finish(reject, err); // an `error` event: the server's message and trace id
        return;
      }
      if (item.type === "done") finish(resolve, item.data);
    };
    socket.onclose = (event) => {
      if (!opened) finish(resolve, null);
      else {
        const message = STREAM_CUT.replace(".", ` (the connection closed: ${event.code}).`);
        finish(reject, new ApiError(0, "stream_cut", message));
      }
    };
  });
}
