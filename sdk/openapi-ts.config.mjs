// The root's `npm run sdk:generate` writes openapi.json from the service's routes, then generates with this
// configuration (scripts/sdk-generate.ts); `npm run generate` here regenerates from the committed openapi.json.
/** @type {import('@hey-api/openapi-ts').UserConfig} */
export default {
  input: './openapi.json',
  output: {
    path: './src/generated',
    module: { extension: '.js' },
  },
  logs: { file: false },
  plugins: [
    { name: '@hey-api/client-fetch' },
    { name: '@hey-api/typescript' },
    { name: '@hey-api/sdk' },
  ],
};
