import { describe, expect, it } from "vitest";
import { z } from "zod";
import { firstIssue, formatIssues, issuePath } from "../../src/util/zodIssues.js";

const S = z.object({ models: z.array(z.object({ spec: z.string(), n: z.number() })) });
const bad = S.safeParse({
  models: [
    { spec: "x", n: 1 },
    { spec: 3, n: "y" },
  ],
});

describe("zod issue formatting", () => {
  it("prints paths in dots or brackets, and names the root", () => {
    expect(issuePath(["models", 2, "sampling"])).toBe("models.2.sampling");
    expect(issuePath(["models", 2, "sampling"], "brackets")).toBe("models[2].sampling");
    expect(issuePath([])).toBe("(root)");
  });

  it("lists every issue, or the first few with a count of the rest", () => {
    expect(bad.success).toBe(false);
    if (bad.success) return;
    expect(formatIssues(bad.error)).toMatch(/^models\.1\.spec: .+; models\.1\.n: .+$/);
    expect(formatIssues(bad.error, { max: 1, style: "brackets" })).toMatch(/^models\[1\]\.spec: .+ \(and 1 more\)$/);
    expect(firstIssue(bad.error)).toEqual({ field: "models.1.spec", detail: expect.stringMatching(/\(and 1 more issue\)$/) });
  });
});
