import { notYetImplemented } from "../stub.js";
export const game = notYetImplemented("trust");
