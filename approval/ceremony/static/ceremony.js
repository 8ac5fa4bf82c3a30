// Browser side of the gatehouse approval ceremony. displayText is only ever
// assigned with textContent: it is shown verbatim and never parsed as HTML.
// Every URL is relative to the page (<base>/c/<id>), so the bridge works
// mounted under any path prefix.
"use strict";

const here = location.pathname;
const $ = (sel) => document.getElementById(sel);

function b64urlToBytes(s) {
  s = s.replace(/-/g, "+").replace(/_/g, "/");
  while (s.length % 4) s += "=";
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

function bytesToB64url(buf) {
  const bytes = new Uint8Array(buf);
  let bin = "";
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function descriptors(list) {
  return (list || []).map((d) => ({ ...d, id: b64urlToBytes(d.id) }));
}

function creationOptions(o) {
  return { ...o, challenge: b64urlToBytes(o.challenge), user: { ...o.user, id: b64urlToBytes(o.user.id) },
           excludeCredentials: descriptors(o.excludeCredentials) };
}

function requestOptions(o) {
  return { ...o, challenge: b64urlToBytes(o.challenge), allowCredentials: descriptors(o.allowCredentials) };
}

function credentialJSON(cred) {
  const r = cred.response;
  const out = { id: cred.id, rawId: bytesToB64url(cred.rawId), type: cred.type,
                authenticatorAttachment: cred.authenticatorAttachment || undefined,
                clientExtensionResults: cred.getClientExtensionResults() };
  if (r.attestationObject) {
    out.response = { clientDataJSON: bytesToB64url(r.clientDataJSON), attestationObject: bytesToB64url(r.attestationObject),
                     transports: r.getTransports ? r.getTransports() : [] };
  } else {
    out.response = { clientDataJSON: bytesToB64url(r.clientDataJSON), authenticatorData: bytesToB64url(r.authenticatorData),
                     signature: bytesToB64url(r.signature) };
    if (r.userHandle) out.response.userHandle = bytesToB64url(r.userHandle);
  }
  return out;
}

// Refused: the program waiting for the ceremony checked the result and
// turned it down (CreateChecked); message is its reason, shown as text.
class Refused extends Error {}

// post sends the result. It resolves to true when the waiting program
// checked and accepted it, false when it takes the result unchecked.
async function post(body) {
  const res = await fetch(here + "/result", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (res.status === 204) return false;
  if (res.status === 200) return (await res.json()).accepted === true;
  if (res.status === 422) throw new Refused((await res.json()).error || "no reason given");
  throw new Error("the bridge refused the result (" + res.status + ")");
}

function finish(text, state) {
  $("buttons").hidden = true;
  $("status").textContent = text;
  document.body.dataset.state = state;
}

async function main() {
  const res = await fetch(here + "/data");
  if (!res.ok) { finish("This request is unknown, finished or expired.", "gone"); return; }
  const c = await res.json();
  if (c.kind === "get") {
    $("title").textContent = "Approve this action";
    $("display-text").textContent = c.displayText;
    $("action").hidden = false;
  } else {
    $("title").textContent = "Enroll a passkey for approvals";
    $("approve").textContent = "Create passkey";
  }
  $("buttons").hidden = false;
  document.body.dataset.state = "ready";
  $("deny").addEventListener("click", async () => {
    await post({ error: "denied by the user" }).catch(() => {});
    finish("Denied. You can close this tab.", "denied");
  });
  $("approve").addEventListener("click", async () => {
    $("approve").disabled = true;
    let cred;
    try {
      cred = c.kind === "get"
        ? await navigator.credentials.get({ publicKey: requestOptions(c.options) })
        : await navigator.credentials.create({ publicKey: creationOptions(c.options) });
    } catch (e) {
      await post({ error: String(e && e.name || e) }).catch(() => {});
      finish("The passkey ceremony failed: " + (e && e.message || e), "failed");
      return;
    }
    try {
      const accepted = await post({ response: credentialJSON(cred) });
      finish(accepted ? "Your passkey is enrolled. You can close this tab." : "Done. You can close this tab.", "done");
    } catch (e) {
      if (e instanceof Refused) finish("The server did not accept this passkey: " + e.message, "refused");
      else finish("Sending the result failed: " + e.message, "failed");
    }
  });
}

main().catch((e) => finish("Error: " + e.message, "failed"));
