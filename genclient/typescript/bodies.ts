// Bodies checked against the types openapi-typescript generates from the
// served document (schema.d.ts, written beside this file by the test). The
// file must compile under tsc --strict: the right bodies are accepted, and
// every line after @ts-expect-error must stay an error, since the server
// refuses that body. A wrong body that the types start to accept makes the
// directive unused, which tsc reports as an error.
import type { components } from "./schema";

type S = components["schemas"];

// Right bodies: each alternative the server takes.
export const cardB: S["CardInsertRequest"] = {
  expiryMonth: 12, expiryYear: 40, first6Digits: "424242", last4Digits: "4242", providerBCse: "eyJ...",
};
export const cardD: S["CardInsertRequest"] = {
  expiryMonth: 12, expiryYear: 40, first6Digits: "424242", last4Digits: "4242", providerDToken: "tok_1",
};
export const cardBoth: S["CardInsertRequest"] = {
  expiryMonth: 12, expiryYear: 40, first6Digits: "424242", last4Digits: "4242",
  providerBCse: "eyJ...", providerDToken: "tok_1", save: false,
};
export const location: S["CreateLocationRequest"] = { name: "Bar", gateway: "providerD" };
export const locationWithPOS: S["CreateLocationRequest"] = {
  name: "Bar", gateway: "providerB", posUrl: "https://pos.example", posToken: "t",
};
export const faultStatus: S["FaultRequest"] = { pathPrefix: "/v1/", status: 503 };
export const faultLatency: S["FaultRequest"] = { pathPrefix: "/v1/", latencyMs: 200 };
export const payment: S["PaymentRequest"] = { locationId: 1, checkNumber: 2, cardId: 3, amount: 1234567.89, tip: 0.5 };
export const code: S["ErrorCode"] = 404006;
export function eventData(e: S["Event"]): S["BillClosedData"] | null {
  // The event type narrows the data.
  return e.type === "bill.closed" ? e.data : null;
}

// Wrong bodies: the server refuses each, and so must the types.

// @ts-expect-error a number is not a card
export const cardNumber: S["CardInsertRequest"] = 42;

// @ts-expect-error a card needs providerBCse, providerDToken or both
export const cardNoToken: S["CardInsertRequest"] = { expiryMonth: 12, expiryYear: 40, first6Digits: "424242", last4Digits: "4242" };

// @ts-expect-error a card needs its digits and expiry
export const cardOnlyToken: S["CardInsertRequest"] = { providerDToken: "tok_1" };

// @ts-expect-error a location needs a name and a gateway
export const locationEmpty: S["CreateLocationRequest"] = {};

// @ts-expect-error posToken needs posUrl
export const locationTokenOnly: S["CreateLocationRequest"] = { name: "Bar", gateway: "providerD", posToken: "t" };

// @ts-expect-error a fault needs a pathPrefix
export const faultNoPrefix: S["FaultRequest"] = { status: 503 };

// @ts-expect-error a fault needs a status or a latency
export const faultNeither: S["FaultRequest"] = { pathPrefix: "/v1/" };

// @ts-expect-error money is a JSON number, not a string
export const paymentStringAmount: S["PaymentRequest"] = { locationId: 1, checkNumber: 2, cardId: 3, amount: "12.50" };

// @ts-expect-error an error code outside the catalogue and the sandbox's faults
export const codeUnknown: S["ErrorCode"] = 399001;

export function wrongEventData(e: S["Event"]): S["BillClosedData"] | null {
  // @ts-expect-error a payment event's data is a Payment, not a bill
  return e.type === "payment.created" ? e.data : null;
}
