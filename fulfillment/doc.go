// Package fulfillment orders from a location and says how the order
// reaches the customer: the ordering/v3 API.
//
// The flow of a kiosk or an ordering app:
//
//  1. Menu reads the location's menus (the universal format of package
//     universalpos: items with modifier groups and options, and deals).
//     It needs no credential.
//  2. CreateOrder sends the chosen lines by PLU. The service checks them
//     against the menu (every PLU known, items available, each modifier
//     group's min and max respected) and prices the order exactly from the
//     menu: (item price + options) x quantity. See OrderLine for how
//     options nest and how a deal is ordered.
//  3. Set applies one of the four fulfillment methods, values of the types
//     DeliveryByOperator, DeliveryByDeliveryPartner, CollectionByCustomer
//     and OrderAtTable. Set runs the method's Validate first, which reports
//     the same JSON paths as the service ("customer.address.postcode"),
//     and nothing is sent when it fails.
//  4. The service then sends the order to the location's POS in the
//     background, retrying with backoff; WaitForStatus polls the order
//     until the POS accepted it (StatusAcceptedByPOS, with POSOrderID) or
//     the delivery failed (StatusFailed).
//
// Setting the same fulfillment again succeeds, so a Set whose answer was
// lost can simply be repeated; a different fulfillment for an order that
// has one is client.ErrFulfillmentAlreadySet. Another user's order is
// client.ErrNotFound, like one that does not exist.
//
// Nullable members (DeliveryByOperator.CustomerEmail and Coordinates,
// DeliveryByDeliveryPartner.Customer) are pointers and are sent as JSON
// null when nil. Times are time.Time and travel as ISO 8601 with an offset
// (RFC 3339); money is client.Money, exact to the cent.
package fulfillment
