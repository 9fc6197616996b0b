/**
 * One lawn row's combat, turn after turn, exactly as rules.ts `resolveCombat` plays it when only that
 * row has zombies: the heuristic's look-ahead (rowThreat, capacity) asks this per row and candidate,
 * hundreds of turns per decision, and a whole-lawn clone and scan per turn was most of its time.
 *
 * Why one row is enough: with zombies in row r only, a pea hits something only in row r. The shots
 * into row r come, in resolveCombat's row-major order, from the three-line shooters of row r-1, then
 * the peashooters and three-line shooters of row r, then the three-line shooters of row r+1; a pea is
 * lit by a torchwood of row r. Zombies bite only row r's plants, so the neighbours' shooters never
 * change and only row r's plants are copied. Sunflower sun does not matter to the look-ahead.
 */
import type { Plant, PvzConfig, PvzInner, Zombie } from "./rules.js";

export class RowCombat {
  /** Row r's plants (copies: bites change their HP). */
  private readonly plants: Array<Plant | null>;
  /** Columns of the three-line shooters in the rows above and below, left to right. */
  private readonly above: number[] = [];
  private readonly below: number[] = [];

  /**
   * `lawn` is the lawn after planting (only read); `zombies` are row r's, in arrival order, and are
   * mutated in place (the caller passes copies it owns).
   */
  constructor(
    lawn: PvzInner["lawn"],
    readonly zombies: Zombie[],
    private readonly config: PvzConfig,
    row: number,
  ) {
    this.plants = (lawn[row] ?? []).map((x) => (x ? { type: x.type, hp: x.hp } : null));
    for (let c = 0; c < config.cols; c++) {
      if (row > 0 && lawn[row - 1]?.[c]?.type === "S") this.above.push(c);
      if (row + 1 < config.rows && lawn[row + 1]?.[c]?.type === "S") this.below.push(c);
    }
  }

  /** Total HP of the row's zombies still on the lawn. */
  hpLeft(): number {
    return this.zombies.reduce((a, z) => a + z.hp, 0);
  }

  /** Plays one turn (the chili phase burns the whole row when `chili`); true when a zombie got past column 0. */
  turn(chili: boolean): boolean {
    const zs = this.zombies;
    if (chili) zs.length = 0;
    for (const c of this.above) this.shoot(c);
    for (let c = 0; c < this.config.cols; c++) {
      const t = this.plants[c]?.type;
      if (t === "W" || t === "S") this.shoot(c);
    }
    for (const c of this.below) this.shoot(c);
    for (let i = 0; i < zs.length; i++) {
      const z = zs[i]!;
      const p = this.plants[z.col];
      if (p) {
        p.hp -= this.config.zombies[z.type].attack;
        if (p.hp <= 0) this.plants[z.col] = null;
      } else if (z.col === 0) {
        return true;
      } else {
        z.col -= 1;
      }
    }
    return false;
  }

  /** A pea fired from column `col` into this row: the nearest zombie at or ahead of it (earliest arrival on ties). */
  private shoot(col: number): void {
    const zs = this.zombies;
    let best = -1;
    for (let i = 0; i < zs.length; i++) {
      const z = zs[i]!;
      if (z.col >= col && (best < 0 || z.col < zs[best]!.col)) best = i;
    }
    if (best < 0) return;
    const z = zs[best]!;
    let dmg = this.config.peaDamage;
    for (let h = col + 1; h <= z.col; h++) {
      if (this.plants[h]?.type === "H") {
        dmg += this.config.torchwoodBonus;
        break;
      }
    }
    z.hp -= dmg;
    if (z.hp <= 0) zs.splice(best, 1);
  }
}
