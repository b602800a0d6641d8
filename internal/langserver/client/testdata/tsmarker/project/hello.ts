export function hello(name: string): string {
  return "hello " + name;
}
