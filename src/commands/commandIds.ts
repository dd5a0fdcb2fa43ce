/** Every command id, `mobilityApi.<camelVerb>`; titles and icons are in package.json. */
export const COMMANDS = {
  addCredential: 'mobilityApi.addCredential',
  removeCredential: 'mobilityApi.removeCredential',
  renameCredential: 'mobilityApi.renameCredential',
  bindCredential: 'mobilityApi.bindCredential',
  selectEnvironment: 'mobilityApi.selectEnvironment',
  generateToken: 'mobilityApi.generateToken',
  copyToken: 'mobilityApi.copyToken',
  decodeJwt: 'mobilityApi.decodeJwt',
  listVehicles: 'mobilityApi.listVehicles',
  vehicleStatus: 'mobilityApi.vehicleStatus',
  openSettings: 'mobilityApi.openSettings',
  startSandbox: 'mobilityApi.startSandbox',
  stopSandbox: 'mobilityApi.stopSandbox',
  showLog: 'mobilityApi.showLog',
  refreshEnvironments: 'mobilityApi.refreshEnvironments',
  clearTokenHistory: 'mobilityApi.clearTokenHistory',
  decodeDebugVariable: 'mobilityApi.decodeDebugVariable',
  openDecodedToken: 'mobilityApi.openDecodedToken',
  compareTokens: 'mobilityApi.compareTokens',
  copyIssuedToken: 'mobilityApi.copyIssuedToken',
  sendRequest: 'mobilityApi.sendRequest',
  loadAllPages: 'mobilityApi.loadAllPages',
  sendFileRequest: 'mobilityApi.sendFileRequest',
  newRequestFile: 'mobilityApi.newRequestFile',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
