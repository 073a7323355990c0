/**
 * Idempotency receipts for the request layer: http claims a receipt before a mutating request
 * and completes it with the response (store/receipts.ts holds the SQL and its locking notes).
 * http imports store only through store/with-tx.ts, so it reaches receipts through this module.
 */
export { claimReceipt, completeReceipt } from '../store/receipts.js';
export type { ReceiptClaim, ReceiptKey, StoredResponse } from '../store/receipts.js';
