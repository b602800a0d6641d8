import { hello } from "./hello";

export const x: string = hello(42);
