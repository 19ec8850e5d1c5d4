import { createTokenApp } from './app.ts'

// The Workers entry point. To plug your own authorization, pass `authorize` here (see README).
export default createTokenApp()
