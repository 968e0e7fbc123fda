// Unit: Standard Webhooks signatures, checked against the reference library.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { secretKey, signatureMatches, webhookHeaders } from "../../../lib/events/signature.js";

const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;
const body = JSON.stringify({ type: "post.created", data: { id: 1 } });

describe("webhookHeaders", () => {
  it("signs as Standard Webhooks' library checks, with both secrets during a rotation", () => {
    const [old, next] = [newSecret(), newSecret()];
    const headers = webhookHeaders([old, next], "msg_post1v1", body);
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(() => new Webhook(old).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    for (const secret of [old, next]) {
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      const parts = {
        id: headers["webhook-id"] as string,
        timestamp: headers["webhook-timestamp"] as string,
        signature: headers["webhook-signature"] as string,
      };
      expect(signatureMatches(secret, parts, body)).toBe(true);
      expect(signatureMatches(secret, parts, body.replace("1", "2"))).toBe(false);
    }
  });

  it.each(["", "whsec_", "whsec_short", "sk_" + randomBytes(24).toString("base64"), "whsec_!!!!"])(
    "refuses the secret %j",
    (secret) => {
      expect(() => secretKey(secret)).toThrow(/whsec_/);
    },
  );
});
