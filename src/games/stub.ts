// TEMPORARY placeholder so the registry compiles while a game is being written. Removed when all seven exist.
import type { Game, GameName } from "./types.js";
export function notYetImplemented(name: GameName): Game {
  return new Proxy({ name } as Game, {
    get(target, prop) {
      if (prop === "name") return name;
      throw new Error(`game '${name}' is not implemented yet`);
    },
  });
}
