// What each handler is asked in the cold-start and warm sections: the table it is pointed at, its
// i-th request, and the status that request must get.
import { TABLES } from "./tables.mjs";
import { apiEvent, filler } from "./util.mjs";

/** @typedef {import("./util.mjs").ApiEvent} ApiEvent */
/** @typedef {{ table: string, status: number, event: (i: number) => ApiEvent }} HandlerCase */

/**
 * One case per handler. Titles start with `label`; `deleteId(i)` picks the post the i-th delete
 * removes, each a seeded post removed once.
 * @param {string} label @param {(i: number) => number} deleteId
 * @returns {Record<string, HandlerCase>}
 */
export function handlerCases(label, deleteId) {
  return {
    "create-post": {
      table: TABLES.small,
      status: 201,
      event: (i) =>
        apiEvent({ method: "POST", body: { title: `${label} ${i}`, content: filler(i, 200) } }),
    },
    "delete-post": {
      table: TABLES.small,
      status: 204,
      event: (i) => apiEvent({ method: "DELETE", postId: deleteId(i) }),
    },
    "get-post": {
      table: TABLES.small,
      status: 200,
      event: () => apiEvent({ method: "GET", postId: 1 }),
    },
    "list-posts": {
      table: TABLES.listSmall,
      status: 200,
      event: () => apiEvent({ method: "GET" }),
    },
    "update-post": {
      table: TABLES.small,
      status: 200,
      event: (i) => apiEvent({ method: "PUT", postId: 2, body: { title: `${label} ${i}` } }),
    },
  };
}
