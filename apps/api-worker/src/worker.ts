import { createApiApp } from './app.ts'

export { EmulatorState } from './state/emulator-state.ts'

// The Workers entry point; EmulatorState is the Durable Object class bound as STATE.
export default createApiApp()
