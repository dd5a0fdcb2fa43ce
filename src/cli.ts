// placeholder: the CLI is written in this increment
console.log('mobility-api');
