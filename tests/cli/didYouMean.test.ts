import { describe, expect, it } from "vitest";
import { closestName, parseFlags, UsageError } from "../../src/cli/shared/args.js";

describe("did you mean, for unknown flags", () => {
  it("finds the flag within a small edit distance, a swap counting as one edit", () => {
    const names = ["quick", "data", "out", "jobs", "no-notebooks", "engine"];
    expect(closestName("quik", names)).toBe("quick");
    expect(closestName("qucik", names)).toBe("quick");
    expect(closestName("dtaa", names)).toBe("data");
    expect(closestName("no-notebook", names)).toBe("no-notebooks");
    expect(closestName("no-note", names)).toBe("no-notebooks"); // the only name it starts
    expect(closestName("banana", names)).toBeNull();
    expect(closestName("ou", ["out", "oul"])).toBeNull(); // a tie: no guess
  });

  it("names the guess in the usage error", () => {
    const flags = { quick: { type: "boolean" as const }, data: { type: "string" as const } };
    expect(() => parseFlags(["--quik"], flags, "s3gym x [--quick]")).toThrow(UsageError);
    expect(() => parseFlags(["--quik"], flags, "s3gym x [--quick]")).toThrow(/Unknown option '--quik' \(did you mean --quick\?\)\nusage: s3gym x/);
    expect(() => parseFlags(["--zzzzzz"], flags, "u")).toThrow(/^Unknown option '--zzzzzz'\nusage: u$/);
  });
});
