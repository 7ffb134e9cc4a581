// A point of sale against the hospo sandbox, in TypeScript with plain fetch.
// Every request and response body is typed from the sandbox's own OpenAPI
// document (schema.d.ts, which `npm run types` generates with
// openapi-typescript), so a body the server would refuse does not compile.
//
// It plays one round of a POS: it pushes an open check, has the sandbox's
// diner pay part of it, reads the payments poll and accepts the payment.
//
//   HOSPO_BASE_URL   the sandbox (default http://127.0.0.1:8080)
//   HOSPO_ADMIN_KEY  its admin key (default sandbox-admin-key), to read the
//                    demo fixture's POS token and to have its diner pay
//
// Money stays a JSON number, as the document says, and is never added up
// here: amounts are printed as received. A POS that computes with them
// should convert to whole cents (Math.round(x * 100)) or a decimal type.
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type ErrorBody = Schemas["Error"];

const base = process.env.HOSPO_BASE_URL ?? "http://127.0.0.1:8080";
const adminKey = process.env.HOSPO_ADMIN_KEY ?? "sandbox-admin-key";

class APIError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody | null) {
    super(`HTTP ${status}: ${body ? `${body.code} ${body.message}` : "no error body"}`);
  }
}

// call sends one request and returns its JSON body, or throws an APIError
// carrying the service's typed error body.
async function call<T>(method: "GET" | "POST", path: string, opts: { body?: unknown; token?: string; admin?: boolean } = {}): Promise<T> {
  const url = new URL(base + path);
  if (opts.token) url.searchParams.set("accessToken", opts.token);
  const headers: Record<string, string> = {};
  if (opts.admin) headers["X-Sandbox-Admin-Key"] = adminKey;
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  if (!res.ok) {
    let err: ErrorBody | null = null;
    try { err = JSON.parse(text) as ErrorBody; } catch { /* not JSON: keep null */ }
    throw new APIError(res.status, err);
  }
  return JSON.parse(text) as T;
}

type Ok<P extends keyof paths, M extends "get" | "post", S extends number> =
  paths[P][M] extends { responses: { [K in S]: { content: { "application/json": infer B } } } } ? B : never;
type Body<P extends keyof paths> =
  paths[P]["post"] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

async function main(): Promise<void> {
  const fixtures = await call<Ok<"/sandbox/fixtures", "get", 200>>("GET", "/sandbox/fixtures", { admin: true });
  const loc = fixtures.locations[0];
  if (!loc) throw new Error("the sandbox has no demo location");
  const pos = loc.posAccessToken;

  await call<Ok<"/v1/pos/push-pull/heartbeat/{locationId}", "post", 200>>(
    "POST", `/v1/pos/push-pull/heartbeat/${loc.locationId}`, { token: pos });

  // A check number of its own, so that runs do not meet.
  const checkNumber = 100000 + Math.floor(Math.random() * 800000);
  const check: Body<"/v1/pos/push-pull/check"> = {
    tableNumber: 12, checkNumber, locationId: loc.locationId, staffId: "till-1", guests: 2, status: "open",
    totalAmount: 1234567.89, outstandingAmount: 1234567.89, serviceChargeAmount: 0, tipsPaid: 0, discounts: [],
    menuItems: [{ id: 1, name: "Banquet for the house", quantity: 1, price: 1234567.89, priceSold: 1234567.89, category: { name: "Mains" } }],
  };
  const pushed = await call<Ok<"/v1/pos/push-pull/check", "post", 200>>("POST", "/v1/pos/push-pull/check", { body: check, token: pos });
  console.log(`pushed check ${checkNumber} at location ${loc.locationId}: bill ${pushed.billId}, total ${check.totalAmount}`);

  // The sandbox's diner pays part of it, as a guest at the table would.
  const pay: Body<"/sandbox/locations/{locationId}/checks/{checkNumber}/payments"> = { amount: 1000000.01, tip: 0.07 };
  const paid = await call<Ok<"/sandbox/locations/{locationId}/checks/{checkNumber}/payments", "post", 201>>(
    "POST", `/sandbox/locations/${loc.locationId}/checks/${checkNumber}/payments`, { body: pay, admin: true });
  console.log(`diner paid ${paid.payment.amount} with a tip of ${paid.payment.tip}: payment ${paid.payment.paymentId}`);

  const poll = await call<Ok<"/v1/pos/push-pull/payments/{locationId}", "get", 200>>(
    "GET", `/v1/pos/push-pull/payments/${loc.locationId}`, { token: pos });
  const pending = poll.checks[String(checkNumber)] ?? [];
  for (const p of pending) {
    console.log(`poll: payment ${p.paymentId} for check ${checkNumber}: ${p.paymentExTip} + tip ${p.tip}`);
    const accept: Body<"/v1/pos/push-pull/accept-payment"> = { paymentId: p.paymentId };
    const accepted = await call<Ok<"/v1/pos/push-pull/accept-payment", "post", 200>>(
      "POST", "/v1/pos/push-pull/accept-payment", { body: accept, token: pos });
    console.log(`${accepted.status} payment ${accepted.paymentId}`);
  }
  if (pending.length === 0) throw new Error(`the payments poll lists nothing for check ${checkNumber}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
